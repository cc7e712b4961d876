"""assay.store."""
