"""assay.runs."""
