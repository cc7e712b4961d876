"""assay.judging: people grade documents in the browser -- pools, the judging store, export."""

from assay.judging.pool import STRATEGIES, PoolPair, build_pool, read_pool, write_pool
from assay.judging.store import JudgingStore

__all__ = ["STRATEGIES", "JudgingStore", "PoolPair", "build_pool", "read_pool", "write_pool"]
