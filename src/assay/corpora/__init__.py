"""assay.corpora."""
