"""assay.behavior: judgments from behaviour logs (OpenSearch UBI) through click models.

Readers for ``ubi_queries`` / ``ubi_events`` (bulk NDJSON, JSONL, the older
``index<TAB>json`` log, zip archives), the click table of search instances,
CTR / COEC / PBM / DBN click models, implicit judgments graded 0-3 with a
confidence interval per pair, query sets sampled from the log, and the pairs an
implicit set shares with a reference set (for agreement figures).
"""

from assay.behavior.agreement import OverlapPair, overlapping_pairs
from assay.behavior.implicit import ImplicitJudgments, judge_clicks
from assay.behavior.models import UbiEvent, UbiLog, UbiQuery
from assay.behavior.read import read_ubi
from assay.behavior.sample import sample_queries

__all__ = [
    "ImplicitJudgments",
    "OverlapPair",
    "UbiEvent",
    "UbiLog",
    "UbiQuery",
    "judge_clicks",
    "overlapping_pairs",
    "read_ubi",
    "sample_queries",
]
