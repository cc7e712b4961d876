"""The ranked lists, grades and documents behind a result, read from its provenance.

A result file holds scores, not ranked lists. The run file a result names
(``run.path`` of an evaluation, ``systems[].path`` of a comparison) and its
sidecar (``run.trec.json``: the judgment set's path, the corpus) say where
they are; the judgment set gives each document's grade and the grade's source;
the corpus (from the sidecar or system configuration, else ``--corpus``) its
text. What cannot be found is said in :attr:`RankedList.notes`, never guessed.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from assay.core.hashing import content_version
from assay.corpora.load import load_corpus
from assay.io.cachedir import cache_subdir
from assay.io.fileio import locate
from assay.judgments.load import load_judgments
from assay.runs.io import load_run
from assay.runs.offsets import load_offsets, query_lines, run_key, scan_lines
from assay.runs.sidecar import read_sidecar, sidecar_mismatch

#: How a label source is named on the pages.
SOURCE_WORDS = {"human": "person", "model": "model", "behavior": "behaviour"}
#: Characters of a document's text shown in a ranked list.
TEXT_CHARS = 600
#: Ranks shown per list.
MAX_RANKS = 100
#: Held while a run's offsets are looked up or built (one build per run at a time).
_BUILDING = threading.Lock()
#: ``(path, key)`` of the runs whose index is in memory (see :func:`_index`).
_READY: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
#: Held while a judgment set is read (a page waits for the read under way, not a second one).
_READING = threading.Lock()


class RankedDoc(BaseModel):
    """One document of a ranked list."""

    rank: int
    doc_id: str
    score: float | None = None
    grade: int | None = Field(None, description="None: unjudged")
    source: str | None = Field(None, description="who gave the grade: person, model, behaviour")
    text: str | None = Field(None, description="the document's text (shortened), when known")


class RankedList(BaseModel):
    """A system's ranked list for one query, with what could not be read."""

    system: str
    docs: list[RankedDoc] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    found: bool = False


@lru_cache(maxsize=8)
def _run(path: str) -> dict[str, list[tuple[str, float]]]:
    """Every query's ranked list of a whole run (a run file that cannot be indexed)."""

    return load_run(path).to_dict()


def index_path(run: str | Path) -> Path:
    """Where the byte offsets of ``run``'s queries are cached: the project's cache folder
    (``$ASSAY_CACHE_DIR/view``, else ``.assay/cache/view``), named by the run's path."""

    name = content_version(str(Path(run).resolve())).split(":")[1]
    return cache_subdir("view") / f"{name}.offsets.arrow"


@lru_cache(maxsize=8)
def _offsets(path: str, key: tuple[tuple[str, str], ...]) -> Any:
    """The offsets table of a run at one ``key`` (size, mtime, sidecar): a changed file
    gets a new key, so its index is looked up (and rebuilt) again."""

    return load_offsets(path, index_path(path))


def _index(path: str) -> Any:
    """:func:`_offsets` at the run's current key, one build at a time (pages and :func:`warm`)."""

    key = tuple(run_key(path).items())
    with _BUILDING:
        table = _offsets(path, key)
    _READY.add((path, key))
    return table


def _ready(path: str) -> bool:
    """Whether the index of the run at ``path`` (at its current key) is in memory."""

    try:
        return (path, tuple(run_key(path).items())) in _READY
    except OSError:
        return True  # a missing file: the usual path says so


def _index_later(path: str) -> None:
    """Start indexing ``path`` on another thread, unless an index is being built."""

    def index() -> None:
        with contextlib.suppress(Exception):
            _index(path)

    if not _BUILDING.locked():
        threading.Thread(target=index, name="assay-view-index", daemon=True).start()


def warm(
    run_path: str | None,
    folders: Sequence[Path],
    judgments: tuple[str | None, str | None] = (None, None),
) -> None:
    """Index the run ``run_path`` and read the judgment set (as :func:`ranked_list` finds
    them), each on its own thread: the viewer does as it starts (and a result page), so
    the first query page finds them ready; any failure is left for the query page to report."""
    run = locate(run_path, folders)
    if run is None:
        return

    def judged() -> None:
        with contextlib.suppress(Exception):
            jpath = locate(judgments[0], folders) or provenance(str(run), folders)["judgments"]
            if jpath is not None:
                _judged(str(jpath), judgments[1])

    _index_later(str(run))
    threading.Thread(target=judged, name="assay-view-judgments", daemon=True).start()


def query_ranking(path: str, query_id: str) -> list[tuple[str, float]]:
    """``query_id``'s ``(doc_id, score)`` in rank order, read from that query's lines only
    when the run is indexed (:mod:`assay.runs.offsets`), else from the whole run. Before
    the index is ready (it is built on another thread meanwhile), the query's lines are
    searched for in the file, so a page never waits for the whole run's index."""

    if not _ready(path) and (_BUILDING.locked() or not index_path(path).is_file()):
        _index_later(path)  # a cached index is read instead (a few milliseconds)
        found = scan_lines(path, query_id)
        if found is not None:
            return found
    for _ in range(2):
        table = _index(path)
        if table is None:
            break
        pairs = query_lines(path, table, query_id)
        if pairs is not None:
            return pairs
        _offsets.cache_clear()  # the file changed under the index: build it again
        _READY.clear()
        index_path(path).unlink(missing_ok=True)
    return _run(path).get(query_id, [])


@lru_cache(maxsize=4)
def _judgment_set(path: str, fmt: str | None) -> tuple[Any, Any, dict[str, str]]:
    """A judgment set's qrels sorted by query id, their query ids (an Arrow array, in that
    order: a query's rows are found by binary search) and each query's source. Sorted by
    Arrow, not grouped into a dict of every query: the read leaves the pages' thread free."""
    import pyarrow as pa
    import pyarrow.compute as pc

    js = load_judgments(path, None if fmt in (None, "memory") else fmt)
    ids = pa.array(js.qrels["query_id"].astype(str), pa.string())
    order = pc.sort_indices(ids)  # bytes order: the order of Python's str comparison
    q = js.qrels.reset_index(drop=True).take(order.to_numpy())
    query_sources: dict[str, str] = {}
    if "source" in js.queries.columns:
        for qid, s in js.queries["source"].items():
            if isinstance(s, str):
                query_sources[str(qid)] = s
    return q, ids.take(order), query_sources


def _rows_of(ids: Any, query_id: str) -> slice:
    """The rows of ``query_id`` in the sorted Arrow string array ``ids``."""
    ends = []
    for right in (False, True):
        low, high = 0, len(ids)
        while low < high:
            mid = (low + high) // 2
            key = ids[mid].as_py()
            if key < query_id or (right and key == query_id):
                low = mid + 1
            else:
                high = mid
        ends.append(low)
    return slice(*ends)


def _judged(path: str, fmt: str | None) -> tuple[Any, Any, dict[str, str]]:
    """:func:`_judgment_set`, one read at a time (pages and :func:`warm`)."""
    with _READING:
        return _judgment_set(path, fmt)


def _judgments(
    path: str, fmt: str | None, query_id: str
) -> tuple[dict[tuple[str, str], int], dict[Any, str]]:
    """``{(query, doc): grade}`` and ``{(query, doc) or query: source}`` of ``query_id``
    in a judgment set (the set is read once; each page takes its query's rows only)."""
    q, ids, query_sources = _judged(path, fmt)
    mine = q.iloc[_rows_of(ids, query_id)]
    grades = {
        (query_id, str(b)): int(g) for b, g in zip(mine["doc_id"], mine["grade"], strict=True)
    }
    sources: dict[Any, str] = {}
    if "source" in mine.columns:
        for b, s in zip(mine["doc_id"], mine["source"], strict=True):
            if isinstance(s, str):
                sources[(query_id, str(b))] = s
    if query_id in query_sources:
        sources[query_id] = query_sources[query_id]
    return grades, sources


@lru_cache(maxsize=2)
def _corpus(path: str, id_field: str | None, text_fields: tuple[str, ...] | None = None) -> Any:

    return load_corpus(path, id_field=id_field, text_fields=text_fields)


def _doc_text(corpus: Any, doc_id: str, fields: Sequence[str] | None = None) -> str | None:
    record = corpus.get(doc_id)
    if record is None:
        return None
    keys = fields or [k for k in record if k != corpus.id_field]
    parts = [str(record[k]) for k in keys if record.get(k) not in (None, "")]
    text = " · ".join(parts)
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"


def provenance(run_path: str | None, folders: Sequence[Path]) -> dict[str, Any]:
    """Where a run's files are: ``run``, ``sidecar`` (dict), ``judgments``, ``corpus``."""

    run = locate(run_path, folders)
    side: dict[str, Any] = {}
    if run is not None:
        try:
            side = read_sidecar(run) or {}
            if side and sidecar_mismatch(side, run) is not None:
                side = {}  # another run's sidecar: its provenance is not this run's
        except Exception:  # a damaged sidecar: shown as missing provenance
            side = {}
    config = side.get("system_config") or {}
    corpus = side.get("corpus_path") or side.get("corpus") or config.get("corpus")
    base = [run.parent, *folders] if run is not None else list(folders)
    return {
        "run": run,
        "sidecar": side,
        "judgments": locate(side.get("judgments"), base),
        "corpus": locate(corpus if isinstance(corpus, str) else None, base),
        "id_field": config.get("id_field"),
    }


def ranked_list(
    system: str,
    run_path: str | None,
    query_id: str,
    folders: Sequence[Path],
    *,
    judgments: tuple[str | None, str | None] = (None, None),
    corpus: tuple[str | None, str | None] = (None, None),
) -> RankedList:
    """``system``'s ranked list for ``query_id`` with grades and texts, as far as found.

    ``judgments`` is ``(path, format)`` from the result (else the sidecar's);
    ``corpus`` is ``(path, id field)`` given to ``assay view``, used when the provenance
    names no corpus.
    """
    out = RankedList(system=system)
    prov = provenance(run_path, folders)
    if prov["run"] is None:
        out.notes.append(
            f"The run file {run_path or '(none recorded)'} is not here, so the ranked list "
            "cannot be shown."
        )
        return out
    pairs = query_ranking(str(prov["run"]), query_id)[:MAX_RANKS]
    out.found = True
    out.docs = [RankedDoc(rank=i, doc_id=d, score=s) for i, (d, s) in enumerate(pairs, 1)]
    jpath = locate(judgments[0], folders) or prov["judgments"]
    if jpath is None:
        out.notes.append("The judgment set is not here: grades are not shown.")
    else:
        grades, sources = _judgments(str(jpath), judgments[1], query_id)
        for doc in out.docs:
            doc.grade = grades.get((query_id, doc.doc_id))
            raw = sources.get((query_id, doc.doc_id)) or sources.get(query_id)
            doc.source = SOURCE_WORDS.get(raw or "", raw) if doc.grade is not None else None
    cpath = prov["corpus"] or (Path(corpus[0]) if corpus[0] else None)
    if cpath is None:
        out.notes.append(
            "The run's provenance names no corpus: documents are shown by id "
            "(start assay view with --corpus to see their text)."
        )
    else:
        id_field = prov["id_field"] if prov["corpus"] is not None else corpus[1]
        fields = corpus[2] if prov["corpus"] is None and len(corpus) > 2 else None
        loaded = _corpus(str(cpath), id_field or prov["id_field"], fields)
        for doc in out.docs:
            doc.text = _doc_text(loaded, doc.doc_id, fields)
    return out
