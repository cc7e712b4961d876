"""trec_eval's measure names, parameters and output format, byte for byte.

trec_eval names a measure (``P``), optionally with parameters after a dot
(``P.5,10``, ``ndcg.1=3,2=9``, ``utility.2,-1,0,0``); nicknames (``official``,
``all_trec``, ``set``) name groups. :func:`trec_outputs` turns such specs into
the printed names and the registry :class:`~assay.metrics.measures.Measure` of
each; :func:`trec_eval_lines` scores a run and prints what trec_eval prints
(``-q`` per query, ``-c``, ``-M``, ``-l``, ``-J``, ``-n``, ``-Z``; printing in
:mod:`assay.metrics.treceval_print`) from the judgments :func:`read_rel_info`
reads for ``-R`` (qrels, judgment groups, preferences), measures in
trec_eval's table order.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from assay.core.errors import UsageError
from assay.judgments.prefs import Preferences, load_prefs
from assay.judgments.trec import load_trec_eval_qrels
from assay.metrics.dispatch import evaluate
from assay.metrics.engine import rank_context
from assay.metrics.kernels_trec import lround
from assay.metrics.measures import Measure
from assay.metrics.prefs import PLACEHOLDER_DOC, score_prefs
from assay.metrics.qrels_jg import JudgmentGroups, load_qrels_jg
from assay.metrics.registry import PREFERENCE_MEASURES, REGISTRY, TREC_NAMES
from assay.metrics.treceval_print import Scored, render
from assay.metrics.zscores import load_zscores
from assay.runs.io import load_trec_eval_run
from assay.runs.models import Run as RunModel

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.judgments.prefs import Preferences
    from assay.metrics.qrels_jg import JudgmentGroups
    from assay.metrics.zscores import ZScores
    from assay.runs.models import Run

_CUTS = "5,10,15,20,30,100,200,500,1000"
_LEVELS = "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"

#: trec_eval's measures in its table order: name -> (kind, default parameters)
TABLE: dict[str, tuple[str, str]] = {
    "runid": ("runid", ""),
    "num_q": ("long", ""),
    "num_ret": ("long", ""),
    "num_rel": ("long", ""),
    "num_rel_ret": ("long", ""),
    "map": ("plain", ""),
    "gm_map": ("summary", ""),
    "Rprec": ("plain", ""),
    "bpref": ("plain", ""),
    "recip_rank": ("plain", ""),
    "iprec_at_recall": ("cut_double", _LEVELS),
    "P": ("cut", _CUTS),
    "relstring": ("relstring", "10"),
    "recall": ("cut", _CUTS),
    "infAP": ("plain", ""),
    "gm_bpref": ("summary", ""),
    "Rprec_mult": ("cut_double", "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0"),
    "utility": ("param", "1,-1,0,0"),
    "11pt_avg": ("param", _LEVELS),
    "binG": ("plain", ""),
    "G": ("pairs", ""),
    "ndcg": ("pairs", ""),
    "ndcg_rel": ("pairs", ""),
    "Rndcg": ("pairs", ""),
    "ndcg_cut": ("cut", _CUTS),
    "map_cut": ("cut", _CUTS),
    "relative_P": ("cut", _CUTS),
    "success": ("cut", "1,5,10"),
    "set_P": ("plain", ""),
    "set_relative_P": ("plain", ""),
    "set_recall": ("plain", ""),
    "set_map": ("plain", ""),
    "set_F": ("param", "1"),
    "num_nonrel_judged_ret": ("long", ""),
    "map_avgjg": ("plain", ""),
    "P_avgjg": ("cut", _CUTS),
    "Rprec_mult_avgjg": ("cut_double", "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0"),
    "rbp": ("pairs", ""),
    "rbp_resid": ("pairs", ""),
    "unj": ("cut", "5,10,20"),
}


def _with_prefs(table: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """The table with the registry's preference measures, where trec_eval lists them."""

    items = list(table.items())
    at = list(table).index("map_avgjg")
    prefs = [
        (p.name, ("prefs_count" if p.aggregate == "sum" else "prefs", ""))
        for p in PREFERENCE_MEASURES
    ]
    return dict(items[:at] + prefs + items[at:])


TABLE = _with_prefs(TABLE)
_PREFS = tuple(n for n, (kind, _) in TABLE.items() if kind.startswith("prefs"))

#: the judgments (trec_eval -R) a measure needs, when not plain qrels
FORMATS: dict[str, str] = {
    "runid": "any",
    "num_q": "any",
    "map_avgjg": "qrels_jg",
    "P_avgjg": "qrels_jg",
    "Rprec_mult_avgjg": "qrels_jg",
    **dict.fromkeys(_PREFS, "prefs,qrels_prefs"),
}

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
        "bpref", "recip_rank", "iprec_at_recall", "P",
    ),
    "all_trec": tuple(n for n in TABLE if FORMATS.get(n, "qrels") in ("qrels", "any")),
    "set": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_recall", "set_relative_P", "set_map", "set_F",
    ),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
    "all_prefs": ("runid", "num_q", *_PREFS),
    "prefs": ("runid", "num_q", *_PREFS[:6]),
}  # fmt: skip


def _families() -> dict[str, str]:
    """trec_eval name -> registry family, from the registry's declared trec_eval names."""

    return {name: family for name, (family, _) in TREC_NAMES.items()}


#: trec_eval name -> the registry family it is computed with
_FAMILY = _families()
_PARAM_KEY = {"utility": "coef", "11pt_avg": "at", "set_F": "beta"}


@dataclass(frozen=True)
class Output:
    """One printed value: trec_eval's name, its kind and the measure computing it."""

    name: str
    kind: str  # long, double, summary (summary line only), relstring, runid
    measure: Measure | None
    depth: int = 0  # relstring: documents shown
    base: str = ""  # the trec_eval measure printing it (P for P_5)


def parse_specs(specs: list[str]) -> dict[str, str | None]:
    """``-m`` arguments -> {trec_eval name: parameter text or None}, table order.

    A nickname adds its measures; the first parameters given for a measure win
    (as trec_eval). Raises :class:`UsageError` on an unknown name.
    """
    wanted: dict[str, str | None] = {}
    for spec in specs or ["official"]:
        name, dot, params = spec.partition(".")
        names = NICKNAMES.get(name, (name,) if name in TABLE else ())
        if not names:
            known = ", ".join([*NICKNAMES, *TABLE])
            raise UsageError(f"unknown trec_eval measure {name!r}; use one of {known}")
        for n in names:
            if dot and n == name:
                wanted[n] = wanted.get(n) or params
            else:
                wanted.setdefault(n, None)
    return {n: wanted[n] for n in TABLE if n in wanted}


def _num(text: str) -> float:
    """C ``atof`` for the numbers trec_eval reads in parameters."""
    import re

    hit = re.match(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text)
    return float(hit.group(0)) if hit else 0.0


def _value(x: float) -> str:
    return str(int(x)) if x == int(x) else repr(x)


def trec_outputs(specs: list[str], rel: int = 1) -> list[Output]:
    """The values trec_eval prints for ``-m`` ``specs``, in its order, with their measures."""
    out: list[Output] = []
    for name, given in parse_specs(specs).items():
        kind, default = TABLE[name]
        params = given if given is not None else default
        out.extend(
            replace(o, base=name) for o in _expand(name, kind, params, given is not None, rel)
        )
    return out


def _measure(name: str, rel: int, cutoff: int | None = None, **params: str) -> Measure:

    fam = REGISTRY[_FAMILY[name]]
    return Measure(
        fam.name, cutoff, rel if fam.takes_rel else 1, params=tuple(sorted(params.items()))
    )


def _expand(name: str, kind: str, params: str, given: bool, rel: int) -> list[Output]:
    if kind == "runid":
        return [Output("runid", "runid", None)]
    if kind.startswith("prefs"):  # scored by assay.metrics.prefs, not by a registry family
        return [Output(name, "long" if kind == "prefs_count" else "double", None)]
    if kind == "relstring":
        label = f"relstring_{params}" if given else "relstring"
        return [Output(label, "relstring", None, depth=int(_num(params)))]
    if kind in ("long", "plain", "summary"):
        shown = "long" if kind == "long" else "summary" if kind == "summary" else "double"
        return [Output(name, shown, _measure(name, rel))]
    if kind == "cut":
        cuts = sorted({int(_num(c)) for c in params.split(",")})
        return [Output(f"{name}_{c}", "double", _measure(name, rel, c)) for c in cuts]
    if kind == "cut_double":
        key = "recall" if name == "iprec_at_recall" else "mult"
        cuts = sorted({_num(c) for c in params.split(",")})
        return [
            Output(f"{name}_{c:3.2f}", "double", _measure(name, rel, **{key: _value(c)}))
            for c in cuts
        ]
    label = f"{name}_{params}" if given else name
    if kind == "param":
        values = ",".join(_value(_num(v)) for v in params.split(","))
        return [Output(label, "double", _measure(name, rel, **{_PARAM_KEY[name]: values}))]
    pairs = [p.partition("=") for p in params.split(",")] if params else []
    extra: dict[str, str] = {}
    if name in ("rbp", "rbp_resid"):
        extra = dict(("p", _value(_num(v))) for k, _, v in pairs if k == "p")
    else:
        levels = [f"{int(k)}:{_value(_num(v))}" for k, _, v in pairs if _is_int(k)]
        extra = {"gains": ",".join(levels)} if levels else {}
    return [Output(label, "double", _measure(name, rel, **extra))]


def _is_int(text: str) -> bool:
    body = text[1:] if text[:1] in "+-" else text
    return body.isdigit()


#: trec_eval's -R values
REL_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")


def read_rel_info(path: str | Path, rel_format: str = "qrels") -> Any:
    """Judgments read as trec_eval ``-R rel_format`` reads them.

    ``qrels``: a :class:`~assay.judgments.models.JudgmentSet`; ``qrels_jg``:
    :class:`~assay.metrics.qrels_jg.JudgmentGroups`; ``prefs`` and
    ``qrels_prefs``: :class:`~assay.judgments.prefs.Preferences`. Raises
    :class:`UsageError` on another format.
    """
    if rel_format == "qrels":
        return load_trec_eval_qrels(path)
    if rel_format == "qrels_jg":
        return load_qrels_jg(path)
    if rel_format in ("prefs", "qrels_prefs"):
        return load_prefs(path, rel_format)
    raise UsageError(f"-R must be one of {', '.join(REL_FORMATS)}, not {rel_format!r}")


def trec_eval_files(
    qrels: str | Path,
    run: str | Path,
    specs: list[str],
    *,
    rel_format: str = "qrels",
    zscore_file: str | Path | None = None,
    **options: Any,
) -> tuple[list[str], list[str]]:
    """trec_eval on files (``assay trec-eval``): (printed lines, warnings about the judgments).

    ``rel_format`` is ``-R`` (see :func:`read_rel_info`), ``zscore_file``
    ``-Z``; ``options`` are those of :func:`trec_eval_lines`. The run is read
    as trec_eval 10 reads it (:func:`~assay.runs.io.load_trec_eval_run`:
    comment and blank lines skipped, rank field ignored, ``runid`` from the
    last line).
    """

    judgments = read_rel_info(qrels, rel_format)
    zscores = load_zscores(zscore_file) if zscore_file is not None else None
    ranked = load_trec_eval_run(run)  # comments and blank lines skipped, as trec_eval 10
    lines = trec_eval_lines(judgments, ranked, specs, zscores=zscores, **options)
    return lines, list(getattr(judgments, "warnings", []))


def trec_eval_lines(
    judgments: JudgmentSet | JudgmentGroups | Preferences,
    run: Run,
    specs: list[str],
    *,
    per_query: bool = False,
    complete: bool = False,
    depth: int | None = None,
    rel: int = 1,
    judged_only: bool = False,
    summary: bool = True,
    zscores: ZScores | None = None,
) -> list[str]:
    """Score ``run`` and print what ``trec_eval`` prints with the same options.

    ``per_query`` is ``-q``, ``complete`` ``-c``, ``depth`` ``-M``, ``rel``
    ``-l``, ``judged_only`` ``-J``, ``summary=False`` ``-n``, ``zscores``
    ``-Z`` (see :mod:`assay.metrics.zscores`). ``judgments`` read with
    :func:`~assay.metrics.qrels_jg.load_qrels_jg` are trec_eval's ``-R
    qrels_jg``, with :func:`~assay.judgments.prefs.load_prefs` ``-R prefs``
    or ``qrels_prefs``. Queries print in trec_eval's order (query ids sorted). Raises
    :class:`UsageError` for a measure the judgments cannot give and when no
    query has both judgments and results (trec_eval exits 7 there).
    """
    outputs = trec_outputs(specs, rel)
    options = {"complete": complete, "depth": depth, "judged_only": judged_only}
    scored = score(judgments, run, outputs, **options)
    return render(outputs, scored, run.name, per_query=per_query, summary=summary,
                  complete=complete, zscores=zscores)  # fmt: skip


def score(
    judgments: JudgmentSet | JudgmentGroups | Preferences,
    run: Run,
    outputs: list[Output],
    *,
    complete: bool = False,
    depth: int | None = None,
    judged_only: bool = False,
) -> Scored:
    """Per-query values of ``outputs`` for trec_eval's three kinds of judgments.

    TREC qrels (``-R qrels``), judgment groups (``-R qrels_jg``, averaged over
    groups) or preferences (``-R prefs``/``qrels_prefs``, where ``-J`` changes
    nothing, as in trec_eval). Raises :class:`UsageError` for a measure the
    judgments cannot give.
    """

    if isinstance(judgments, Preferences):
        check_format(outputs, judgments.format)
        qids, values = score_prefs(judgments, run, complete=complete, depth=depth)
        ones = np.ones(len(qids))  # num_q: 1 per query (runid prints no value)
        return Scored(qids, {o.name: values.get(o.name, ones) for o in outputs}, {})
    options = {"complete": complete, "depth": depth, "judged_only": judged_only}
    if isinstance(judgments, JudgmentGroups):
        check_format(outputs, "qrels_jg")
        scored = score_qrels(judgments.judgments, judgments.expand(run), outputs, **options)
        return _averaged(scored, judgments)
    check_format(outputs, "qrels")
    return score_qrels(judgments, run, outputs, **options)


def check_format(outputs: list[Output], rel_format: str) -> None:
    """Raise :class:`UsageError` for a measure trec_eval cannot compute from ``rel_format``."""
    for o in outputs:
        base = o.base or o.name
        needs = FORMATS.get(base, "qrels")
        if needs != "any" and rel_format not in needs.split(","):
            raise UsageError(
                f"trec_eval measure {base!r} needs -R {needs.split(',')[0]} judgments, "
                f"not {rel_format}"
            )


def score_qrels(
    judgments: JudgmentSet,
    run: Run,
    outputs: list[Output],
    *,
    complete: bool = False,
    depth: int | None = None,
    judged_only: bool = False,
) -> Scored:
    """Per-query values of ``outputs`` on TREC qrels, as trec_eval computes them."""

    present = set(run.query_ids)
    missing = [q for q in judgments.answerable_ids if q not in present]
    if complete and missing:
        run = with_placeholder_docs(run, missing)
    ranked = rank_context(judgments, run, depth=depth)
    ctx = ranked.ctx.condensed() if judged_only else ranked.ctx
    keep = [i for i in range(len(ranked.query_ids)) if ranked.in_run[i]]
    if not keep:
        raise UsageError("no queries with both results and judgments")
    keep.sort(key=lambda i: ranked.query_ids[i])
    # judged queries the run lacked (-c gave them placeholders); a set, not np.isin on
    # object arrays, which compares every pair
    absent = np.fromiter((q not in present for q in ranked.query_ids), bool, len(ranked.query_ids))
    values = {o.name: _values(o, ctx, ranked.in_run, absent)[keep] for o in outputs}
    texts: dict[str, list[str]] = {}
    for o in outputs:
        if o.kind == "relstring":
            strings = relstrings(ctx, o.depth)
            # trec_eval clears the default relstring of -c's placeholder queries
            blank = o.name == "relstring"
            texts[o.name] = ["" if blank and absent[i] else strings[i] for i in keep]
    total = float(np.count_nonzero(ctx.qrels_grade > 0))
    return Scored([ranked.query_ids[i] for i in keep], values, texts, total)


def _averaged(scored: Scored, groups: JudgmentGroups) -> Scored:
    """Per-group values folded into per-query means (trec_eval's ``*_avgjg``)."""
    values = {}
    qids: list[str] = []
    for name, v in scored.values.items():
        qids, values[name] = groups.average(scored.query_ids, v)
    return Scored(qids, values, {}, scored.num_rel_all)


#: outputs trec_eval resets to 0 for such a query (by exact printed name; unj* by prefix)
_RESET = ("num_ret", "utility", "rbp_resid")


def with_placeholder_docs(run: Run, query_ids: list[str]) -> Run:
    """``run`` plus, for each of ``query_ids``, trec_eval -c's one unjudged placeholder doc."""
    import pandas as pd

    extra = pd.DataFrame({"query_id": query_ids, "doc_id": PLACEHOLDER_DOC, "score": 1.0})
    frame = run.frame[["query_id", "doc_id", "score"]].astype({"query_id": str, "doc_id": str})
    both = pd.concat([frame, extra], ignore_index=True)
    return RunModel(both, name=run.name, path=run.path, has_scores=True)


def _values(o: Output, ctx: Any, in_run: Any, absent: Any) -> Any:
    """Per-query values of one output, with trec_eval's resets for -c's placeholder queries."""

    if o.measure is None:
        return np.zeros(ctx.nq)
    values = _zero_by_zero(o.measure, evaluate(o.measure, ctx), ctx, in_run)
    if absent.any() and (o.name in _RESET or o.name.startswith("unj")):
        values = np.where(absent, 0.0, values)
    return values


def _zero_by_zero(m: Measure, values: Any, ctx: Any, in_run: Any) -> Any:
    """trec_eval's interpolated precision divides 0 by 0 for a ranking left empty (``-J``).

    It prints ``-nan`` there (x86's default NaN); assay's kernels give 0.
    """

    if m.family not in ("IPrec", "IPrecAvg"):
        return values
    levels = [float(v) for v in m.param("recall" if m.family == "IPrec" else "at").split(",")]
    big_r = ctx.num_rel(m.rel)
    hit_zero = np.zeros(ctx.nq, dtype=bool)
    for level in levels:  # only levels whose rank cutoff rounds to 0 read the 0/0
        hit_zero |= lround(level * big_r) == 0
    empty = in_run & (ctx.count() == 0) & hit_zero
    return np.where(empty, -np.nan, values) if empty.any() else values


def relstrings(ctx: Any, depth: int) -> list[str]:
    """trec_eval's relstring per query: one character per document of the top ``depth``.

    A digit for grades 0-9, ``>`` above, ``-`` not in the pool, ``.`` pooled
    but unjudged (negative grade).
    """

    n = np.minimum(ctx.count(), depth).astype(np.int64)
    chars = [["-"] * int(k) for k in n]
    top = ctx.rank <= depth
    for q, r, g in zip(
        ctx.q[top].tolist(), ctx.rank[top].tolist(), ctx.grade[top].tolist(), strict=True
    ):
        chars[q][r - 1] = ">" if g > 9 else str(g) if g >= 0 else "." if g == -2 else "-"
    return ["".join(c) for c in chars]
