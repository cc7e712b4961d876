"""A user's search function for python-system tests (returns (id, score) pairs)."""


def search(query: str, k: int) -> list[tuple[str, float]]:
    """Rank three fixed ids; the score is the number of query words."""
    n = float(len(query.split()))
    return [("d1", n), ("d2", n / 2), ("d3", n / 4)][:k]


def ids_only(query: str, k: int) -> list[str]:
    """Return bare ids."""
    return ["d3", "d1"][:k]


def with_params(query: str, k: int, boost: float = 1.0) -> list[dict]:
    """Return dicts; ``boost`` multiplies the score."""
    return [{"id": "d2", "score": boost}]


NOT_CALLABLE = 3
