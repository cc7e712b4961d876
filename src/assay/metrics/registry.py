"""The measure registry: one :class:`Family` per measure family, the single source of truth.

Each family declares its name (ir_measures spelling where one exists), its
aliases, its trec_eval names, whether it takes a cutoff and a relevance level,
its other parameters with their defaults, its bounds, how per-query values
aggregate (``mean``; ``sum`` for counts, as trec_eval's summary line does;
``gmean`` for trec_eval's geometric means), its value for a query that is
judged but absent from the run (trec_eval ``-c``), and the name of its kernel
in :mod:`assay.metrics.kernels`. The measure parser, the list of measures in
``--help``, the "unknown measure" error and the trec_eval name map are all
generated from :data:`REGISTRY`.

Notation in the formulas: ``rel(i)`` is 1 when the document at rank ``i`` has
a grade >= ``rel`` (trec_eval ``-l``), ``R`` the number of judged documents of
the query with grade >= ``rel``, ``n`` the number of retrieved documents and
``g(i)`` the gain of the document at rank ``i`` (its grade; unjudged and
negatively graded documents gain nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Aggregate = Literal["mean", "sum", "gmean"]
Cutoff = Literal["none", "optional", "required"]

#: trec_eval's floor before taking logs in geometric means (``MIN_GEO_MEAN``).
MIN_GEO_MEAN = 0.00001


@dataclass(frozen=True)
class Family:
    """One measure family: everything the parser, the engine and the docs need.

    ``params`` maps each extra parameter (beyond ``rel`` and ``gain``) to its
    default as written in a name (``None``: required). ``missing`` is the value
    of a query judged but absent from the run; ``None`` means the kernel's value
    on an empty ranking (0 for every ratio; the number of relevant documents for
    ``NumRel``). ``trec`` lists trec_eval's names: ``(name, form)`` where form
    is ``plain`` (no parameter), ``cut`` (``P_5``), ``param`` (one parameter
    list in the name, ``utility_2,-1,0,0``) or ``gains`` (``ndcg_1=3,2=9``).
    """

    name: str
    doc: str
    kernel: str
    aliases: tuple[str, ...] = ()
    trec: tuple[tuple[str, str], ...] = ()
    cutoff: Cutoff = "none"
    takes_rel: bool = True
    params: dict[str, str | None] = field(default_factory=dict)
    bounds: tuple[float | None, float | None] = (0.0, 1.0)
    aggregate: Aggregate = "mean"
    missing: float | None = None
    example: str = ""

    @property
    def bounded(self) -> bool:
        """True when values lie in [0, 1]."""
        return self.bounds == (0.0, 1.0)

    @property
    def usage(self) -> str:
        """How the family is written, e.g. ``P@k``, ``RR[@k]``, ``RBP(p=0.9)``."""
        text = self.name
        if "recall" in self.params:  # IPrec: the recall level is written as a cutoff
            return text + "@r"
        required = [k for k, v in self.params.items() if v is None]
        if required:
            text += "(" + ",".join(f"{k}=..." for k in required) + ")"
        if self.cutoff == "required":
            text += "@k"
        elif self.cutoff == "optional":
            text += "[@k]"
        return text


def _f(*args, **kwargs) -> Family:
    return Family(*args, **kwargs)


_COUNT = {"bounds": (0.0, None), "aggregate": "sum"}

FAMILY_LIST: tuple[Family, ...] = (
    _f("P", "Precision at k: sum_{i<=k} rel(i) / k.", "precision", ("precision",),
       (("P", "cut"), ("P_avgjg", "cut")), cutoff="required", example="P@10"),
    _f("R", "Recall at k: sum_{i<=k} rel(i) / R (0 when R = 0).", "recall", ("recall",),
       (("recall", "cut"),), cutoff="required", example="R@100"),
    _f("RR", "Reciprocal rank of the first relevant document (within the top k): 1 / rank.",
       "rr", ("mrr", "recip_rank"), (("recip_rank", "plain"),), cutoff="optional",
       example="RR@10"),
    _f("nDCG", "Normalised DCG: sum_i g(i) / log2(i + 1) over the same sum for the ideal "
       "ranking of all judged documents (top k). gain=exp uses 2^g - 1; gains=1:3,2:9 maps "
       "grades to gains (unlisted grades gain their grade), as trec_eval's ndcg.1=3,2=9; "
       "ranx's ndcg_burges is nDCG(gain=exp).",
       "ndcg", (), (("ndcg", "gains"), ("ndcg_cut", "cut")), cutoff="optional",
       takes_rel=False, params={"gain": "linear", "gains": ""}, example="nDCG@10"),
    _f("AP", "Average precision: sum_{i<=k} rel(i) * P@i / R.", "ap", ("map",),
       (("map", "plain"), ("map_cut", "cut"), ("map_avgjg", "plain")), cutoff="optional",
       example="AP"),
    _f("GMAP", "AP per query; the aggregate is the geometric mean exp(mean(log(max(AP, "
       "1e-5)))) (trec_eval gm_map).", "ap", ("gm_map",), (("gm_map", "plain"),),
       aggregate="gmean", example="GMAP"),
    _f("Rprec", "Precision at rank R: sum_{i<=R} rel(i) / R (ranx r-precision).", "rprec",
       ("r_prec", "r-precision"), (("Rprec", "plain"),), example="Rprec"),
    _f("RprecMult", "Precision at rank ceil-ish(mult * R) (trec_eval: (long)(mult * R + 0.9)); "
       "past the end of the run, num_rel_ret / cutoff.", "rprec_mult", ("rprec_mult",),
       (("Rprec_mult", "cut"), ("Rprec_mult_avgjg", "cut")), params={"mult": None},
       example="RprecMult(mult=0.5)"),
    _f("Bpref", "Binary preference: (1/R) sum over retrieved relevant r of 1 - min(N_r, R) / "
       "min(N, R), N_r the judged non-relevant documents above r, N all judged non-relevant "
       "(ranx's bpref is NaN when N = 0).",
       "bpref", (), (("bpref", "plain"),), example="Bpref"),
    _f("GMBpref", "Bpref per query; the aggregate is the geometric mean (trec_eval gm_bpref).",
       "bpref", ("gm_bpref",), (("gm_bpref", "plain"),), aggregate="gmean", example="GMBpref"),
    _f("infAP", "Inferred AP (Yilmaz and Aslam), judged documents with a negative grade being "
       "pooled but unjudged, as trec_eval's infAP.", "infap", ("infap",), (("infAP", "plain"),),
       example="infAP"),
    _f("IPrec", "Interpolated precision at recall level r: max precision at any rank whose "
       "recall is >= r (rank cutoffs lround(r * R)).", "iprec", ("iprec_at_recall",),
       (("iprec_at_recall", "cut"),), params={"recall": None}, example="IPrec@0.5"),
    _f("IPrecAvg", "Mean of IPrec over the recall levels at= (default the 11 points 0, 0.1, ..., "
       "1: trec_eval 11pt_avg).", "iprec_avg", ("11pt_avg", "11pt"), (("11pt_avg", "param"),),
       params={"at": "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"}, example="IPrecAvg"),
    _f("Success", "1 when a relevant document is in the top k, else 0 (ranx hit_rate@k; "
       "ranx's hits@k is Hits@k).", "success", ("hit", "hit_rate"), (("success", "cut"),),
       cutoff="required", example="Success@10"),
    _f("Hits", "Relevant documents in the top k: sum_{i<=k} rel(i), all n retrieved without "
       "k; averaged over queries (ranx hits@k; NumRelRet is the count without k, summed).",
       "hits", ("hits",), (), cutoff="optional", bounds=(0.0, None), example="Hits@10"),
    _f("F1", "F1 at k (ranx f1@k): 2 P@k R@k / (P@k + R@k) = 2 sum_{i<=k} rel(i) / (k + R), "
       "k = n without a cutoff; 0 when no relevant document is retrieved.", "f1", ("f1",), (),
       cutoff="optional", example="F1@10"),
    _f("RelP", "Relative precision at k: sum_{i<=k} rel(i) / min(k, R); BEIR's capped recall "
       "R_cap@k is the same value (BEIR averages over the queries of the run: --missing skip).",
       "relative_p", ("relative_p", "r_cap", "recall_cap"), (("relative_P", "cut"),),
       cutoff="required", example="RelP@10"),
    _f("Hole", "BEIR Hole@k: share of the top k that no judgment of the set names, for any "
       "query and with any grade: |{i<=k: doc(i) judged for no query}| / k; 0 for a query "
       "absent from the run. Unlike Unjudged@k, a document judged for another query is "
       "not a hole.", "hole", (), (), cutoff="required", takes_rel=False, missing=0.0,
       example="Hole@10"),
    _f("SetP", "Precision of the whole retrieved set: NumRelRet / n.", "set_p", ("set_p",),
       (("set_P", "plain"),), example="SetP"),
    _f("SetR", "Recall of the whole retrieved set: NumRelRet / R.", "set_r",
       ("set_recall", "setrecall"), (("set_recall", "plain"),), example="SetR"),
    _f("SetRelP", "NumRelRet / min(n, R).", "set_rel_p", ("set_relative_p",),
       (("set_relative_P", "plain"),), example="SetRelP"),
    _f("SetAP", "SetP * SetR (trec_eval set_map).", "set_ap", ("set_map",),
       (("set_map", "plain"),), example="SetAP"),
    _f("SetF", "F-measure of the retrieved set: (1 + beta) P R / (beta P + R), beta not squared "
       "(trec_eval set_F).", "set_f",
       ("set_f",), (("set_F", "plain"),), params={"beta": "1"}, example="SetF"),
    _f("Utility", "a*NumRelRet + b*(n - NumRelRet) + c*(R - NumRelRet) (+ d * docs neither "
       "retrieved nor relevant, 0 here), coefficients coef=a,b,c,d (default 1,-1,0,0); 0 for a "
       "query absent from the run.", "utility", (), (("utility", "param"),),
       params={"coef": "1,-1,0,0"}, bounds=(None, None), missing=0.0, example="Utility"),
    _f("BinG", "Binary G: (1/R) sum over retrieved relevant r of 1 / log2(2 + non-relevant "
       "above r).", "bing", ("bing",), (("binG", "plain"),), example="BinG"),
    _f("G", "trec_eval's G: sum_i g(i) / log2(2 + cost(i) - gain so far) over the ideal gain.",
       "g_measure", (), (("G", "gains"),), takes_rel=False, params={"gains": ""}, example="G"),
    _f("nDCGRel", "trec_eval ndcg_rel: nDCG averaged over the ranks of relevant documents.",
       "ndcg_rel", ("ndcg_rel",), (("ndcg_rel", "gains"),), takes_rel=False,
       params={"gains": ""}, example="nDCGRel"),
    _f("RnDCG", "trec_eval Rndcg: nDCG averaged at the ranks where the ideal gain changes "
       "(0 without a document graded >= rel).",
       "rndcg", ("rndcg",), (("Rndcg", "gains"),), params={"gains": ""},
       example="RnDCG"),
    _f("RBP", "Rank-biased precision (Moffat and Zobel): (1 - p) sum_i g'(i) p^(i-1), gains "
       "scaled to [0, 1] when the grades exceed 1; p defaults to 0.9 as trec_eval's rbp "
       "(ir_measures' RBP defaults to p=0.8: write RBP(p=0.8)).", "rbp", (), (("rbp", "gains"),),
       takes_rel=False, params={"p": "0.9"}, example="RBP(p=0.8)"),
    _f("RBPResid", "Residual of RBP: the most it could rise if every unjudged document "
       "retrieved were fully relevant: p^n + (1 - p) sum_{unjudged i} p^(i-1); 0 without "
       "unjudged documents and for a query absent from the run.", "rbp_resid", ("rbp_resid",),
       (("rbp_resid", "gains"),), takes_rel=False, params={"p": "0.9"}, missing=0.0,
       example="RBPResid(p=0.8)"),
    _f("ERR", "Expected reciprocal rank (Chapelle et al.): sum_{i<=k} (1/i) R_i prod_{j<i} "
       "(1 - R_j), R_i = (2^g(i) - 1) / 2^max, max the top grade (param max, default 4 as "
       "gdeval).", "err", (), (), cutoff="optional", takes_rel=False, params={"max": "4"},
       example="ERR@20"),
    _f("alpha_nDCG", "Diversity (ndeval alpha-nDCG): sum_{i<=k} g(i) / log2(i + 1) over the same "
       "sum for ndeval's greedy ideal ranking; g(i) sums (1 - alpha)^c over the subtopics the "
       "document is relevant to, c the documents above it relevant to the subtopic "
       "(--judgments-format trec-diversity; one subtopic per query otherwise).",
       "diversity_alpha_ndcg", ("alpha-ndcg", "a_ndcg"), (), cutoff="required",
       params={"alpha": "0.5"}, example="alpha_nDCG@20"),
    _f("ERR_IA", "Intent-aware ERR (ndeval ERR-IA): sum_{i<=k} g(i) / i over sum_{i<=k} "
       "S (1 - alpha)^(i-1) / i, alpha 0.5, S the query's subtopics with a relevant document "
       "(unnormalised at k = 1, as ndeval).", "diversity_err_ia", ("err-ia",), (),
       cutoff="required", bounds=(0.0, None), example="ERR_IA@20"),
    _f("NRBP", "Novelty- and rank-biased precision (ndeval NRBP): (1 - (1 - alpha) beta) / S "
       "sum_i g(i) beta^(i-1) over the whole ranking.", "diversity_nrbp", ("nrbp",), (),
       params={"alpha": "0.5", "beta": "0.5"}, example="NRBP"),
    _f("P_IA", "Intent-aware precision (ndeval P-IA): relevant (document, subtopic) pairs in "
       "the top k over k S.", "diversity_p_ia", ("p-ia",), (), cutoff="required",
       example="P_IA@20"),
    _f("StRecall", "Subtopic recall (ndeval strec): subtopics with a relevant document in "
       "the top k over S.", "diversity_st_recall", ("strec", "s-recall"), (),
       cutoff="required", example="StRecall@20"),
    _f("Judged", "Judged documents in the top k over min(k, n) (ir_measures Judged; a "
       "negative grade counts as unjudged, as trec_eval reads it, where ir_measures counts it).",
       "judged", (), (), cutoff="required", takes_rel=False, example="Judged@10"),
    _f("Unjudged", "Unjudged documents in the top k over k (trec_eval unj); 0 for a query "
       "absent from the run.", "unjudged", ("unj",), (("unj", "cut"),), cutoff="required",
       takes_rel=False, missing=0.0, example="Unjudged@10"),
    _f("NumQ", "1 per evaluated query; summed: the number of queries.", "num_q", ("num_q",),
       (("num_q", "plain"),), takes_rel=False, **_COUNT, example="NumQ"),
    _f("NumRet", "Number of retrieved documents (n); 0 for a query absent from the run.",
       "num_ret", ("num_ret",), (("num_ret", "plain"),), takes_rel=False, **_COUNT,
       example="NumRet"),
    _f("NumRel", "Number of relevant judged documents (R).", "num_rel", ("num_rel",),
       (("num_rel", "plain"),), **_COUNT, example="NumRel"),
    _f("NumRelRet", "Number of relevant retrieved documents.", "num_rel_ret", ("num_rel_ret",),
       (("num_rel_ret", "plain"),), **_COUNT, example="NumRelRet"),
    _f("NumNonrelJudgedRet", "Number of retrieved documents judged non-relevant.",
       "num_nonrel_judged_ret", ("num_nonrel_judged_ret",),
       (("num_nonrel_judged_ret", "plain"),), **_COUNT, example="NumNonrelJudgedRet"),
)  # fmt: skip

#: Other tools' names that stand for a family with parameters set (name -> family, params)
PRESETS: dict[str, tuple[str, dict[str, str]]] = {"ndcg_burges": ("nDCG", {"gain": "exp"})}

#: canonical family name -> family
REGISTRY: dict[str, Family] = {f.name: f for f in FAMILY_LIST}


def _aliases() -> dict[str, str]:
    out: dict[str, str] = {}
    for fam in FAMILY_LIST:
        for spelling in (fam.name, *fam.aliases, *(t for t, _ in fam.trec)):
            out.setdefault(spelling.lower(), fam.name)
    return out


#: every accepted spelling (lower-case) -> canonical family name
ALIASES: dict[str, str] = _aliases()

#: trec_eval measure name -> (family name, form), e.g. ``"P": ("P", "cut")``
TREC_NAMES: dict[str, tuple[str, str]] = {
    t: (fam.name, form) for fam in FAMILY_LIST for t, form in fam.trec
}


@dataclass(frozen=True)
class PreferenceMeasure:
    """One trec_eval preference measure (``-R prefs``/``qrels_prefs``), by its trec_eval name.

    Scored from preference judgments by :mod:`assay.metrics.prefs`, not from
    graded qrels, so it is not a :class:`Family`; ``aggregate`` is ``sum``
    for counts, ``mean`` otherwise.
    """

    name: str
    doc: str
    aggregate: Aggregate = "mean"


def _p(name: str, doc: str, aggregate: Aggregate = "mean") -> PreferenceMeasure:
    return PreferenceMeasure(name, doc, aggregate)


_IMPLIED = "pairs with one doc retrieved count (implied), pairs with none count as failures"
_RET = "only pairs with both docs retrieved count"
_IMP = "pairs with one doc retrieved count, pairs with none are ignored"
_RNONREL = (
    "per judgment group, fulfilled over possible preferences with the non-relevant docs "
    "capped at R (the relevant ones), averaged over groups"
)

#: trec_eval's preference measures, in its table order (nickname ``all_prefs``)
PREFERENCE_MEASURES: tuple[PreferenceMeasure, ...] = (
    _p("prefs_num_prefs_poss", "Possible preferences, retrieved or not (summed).", "sum"),
    _p("prefs_num_prefs_ful", f"Fulfilled preferences; {_IMPLIED} (summed).", "sum"),
    _p("prefs_num_prefs_ful_ret", f"Fulfilled preferences; {_RET} (summed).", "sum"),
    _p("prefs_simp", f"Fulfilled over possible preferences; {_IMPLIED}."),
    _p("prefs_pair", f"Mean over doc pairs of the share of groups whose preference is met; "
       f"{_IMPLIED}."),
    _p("prefs_avgjg", f"Fulfilled over possible preferences per judgment group, averaged over "
       f"groups; {_IMPLIED}."),
    _p("prefs_avgjg_Rnonrel", f"{_RNONREL[0].upper()}{_RNONREL[1:]}; {_IMPLIED}."),
    _p("prefs_simp_ret", f"Fulfilled over possible preferences; {_RET}."),
    _p("prefs_pair_ret", f"prefs_pair; {_RET}."),
    _p("prefs_avgjg_ret", f"prefs_avgjg; {_RET}."),
    _p("prefs_avgjg_Rnonrel_ret", f"prefs_avgjg_Rnonrel; {_RET}."),
    _p("prefs_simp_imp", f"Fulfilled over possible preferences; {_IMP}."),
    _p("prefs_pair_imp", f"prefs_pair; {_IMP}."),
    _p("prefs_avgjg_imp", f"prefs_avgjg; {_IMP}."),
)  # fmt: skip


def family(name: str) -> Family:
    """The family of a canonical or alias name; raises ``KeyError`` when unknown."""
    return REGISTRY[ALIASES[name.lower()]] if name not in REGISTRY else REGISTRY[name]


def usage_list() -> str:
    """Every family as written, comma separated (for errors and ``--help``)."""
    return ", ".join(f.usage for f in FAMILY_LIST)


def help_table() -> str:
    """One line per family: usage, trec_eval names and formula (``assay trec-eval --list``)."""
    lines = []
    for f in FAMILY_LIST:
        trec = ", ".join(t for t, _ in f.trec) or "-"
        lines.append(f"{f.usage:<24} trec_eval: {trec:<26} {f.doc}")
    for p in PREFERENCE_MEASURES:
        lines.append(f"{'-':<24} trec_eval: {p.name:<26} {p.doc}")
    return "\n".join(lines)
