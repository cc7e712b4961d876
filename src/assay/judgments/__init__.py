"""assay.judgments."""
