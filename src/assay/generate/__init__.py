"""assay.generate: synthetic test queries written by a model from corpus passages.

Names load lazily so that importing the package stays cheap.
"""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "QUERY_WRITER": "assay.generate.queries",
        "SyntheticQueries": "assay.generate.queries",
        "generate_queries": "assay.generate.queries",
    },
    globals(),
)
