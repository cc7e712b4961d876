"""assay.judging: people grade documents in the browser -- pools, the judging store, export."""

from assay.judging.pool import STRATEGIES, PoolPair, build_pool, read_pool, write_pool

__all__ = ["STRATEGIES", "PoolPair", "build_pool", "read_pool", "write_pool"]
