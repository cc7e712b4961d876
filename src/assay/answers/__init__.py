"""assay.answers."""
