"""assay.metrics."""
