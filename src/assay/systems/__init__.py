"""assay.systems."""
