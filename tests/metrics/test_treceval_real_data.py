"""``assay trec-eval -q -m all_trec`` against the trec_eval binary on every real pair here.

A run and a qrels file form a pair when some (query, document) of the run is
judged in the qrels (ids that merely coincide, such as query ``1`` of two
unrelated collections, are not a pair). From ``../shared/data``:

* trec_eval's own test files: its 3 runs against each of its qrels files that
  judge their documents (15 pairs, comments and float grades included);
* BEIR SciFact (300 test queries): two BM25 runs made here (Lucene's flat
  k1=0.9 b=0.4, and k1=1.2 b=0.75) and their four fusions as ``assay fuse``
  makes them (RRF, interpolation, average, min-max), against the TREC qrels;
* TREC Deep Learning passages (2019, 2020) and DL 2023's LLMJudge split: each
  language model's labels read as a ranking (label as the score: many ties,
  broken by trec_eval's doc id order) against the human qrels;
* TREC-COVID (BEIR's test qrels, 66,334 judgments): pyserini's fusion test
  runs and the fusions its tests expect (two input runs; RRF, interpolation,
  average and normalised outputs);
* trec_eval 10's reading of results files: trec_eval's ``results.test`` with
  comment lines, blank lines, ranks that are not numbers, text after the tag
  and a different tag on its last lines (trec_eval keeps the last one).

Each pair runs under 7 option sets and stdout must be equal byte for byte.
Where trec_eval 10.0 itself stops (exit 4: a judged query without results and
no ``-c``) there is nothing to compare: assay leaves such a query out, as
trec_eval 9 did; those cases are skipped with one shared reason.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from helpers_trec_eval import assay_trec_eval_here, run_trec_eval

pytestmark = pytest.mark.slow

OPTION_SETS = {
    "plain": [],
    "c": ["-c"],
    "l2": ["-l2"],
    "J": ["-J"],
    "M100": ["-M100"],
    "c-J-M100": ["-c", "-J", "-M100"],
    "c-l2-J-M100": ["-c", "-l2", "-J", "-M100"],
}

_TE_QRELS = ("qrels.test", "qrels.test.with-comments", "qrels.test.with-floats", "qrels.rel_level")
#: (qrels, run) of trec_eval's test folder whose judgments cover some of the run's documents
#: (qrels.123 and qrels.comments.123 are judgment groups, read with -R qrels_jg: elsewhere)
TE_PAIRS = [
    *((q, "results.test") for q in (*_TE_QRELS, "qrels-302.test")),
    *((q, "results-302.test") for q in (*_TE_QRELS, "qrels-302.test")),
    *((q, "results.trunc") for q in _TE_QRELS),
    ("qrels.comment.test", "results.comment.test"),
]
#: pyserini's fusion fixtures: runs of TREC-COVID documents (queries 1 and 2)
COVID_RUNS = (
    "simple_trec_run_fusion_1.txt",
    "simple_trec_run_fusion_2.txt",
    "simple_trec_run_rrf_verify.txt",
    "simple_trec_run_interpolation_verify.txt",
    "simple_trec_run_average_verify.txt",
    "simple_trec_run_normalize_verify.txt",
)
SCIFACT_RUNS = ("bm25-flat", "bm25-std", "rrf", "interpolation", "average", "minmax")
#: collection -> (human qrels, the language models' label files)
LLM_LABELS = {
    "dl19": ("dl19-passage.human.qrels", ("dl19-passage.gpt-4o", "dl19-passage.gpt-4o-mini")),
    "dl20": ("dl20-passage.human.qrels", ("dl20-passage.gpt-4o", "dl20-passage.gpt-4o-mini")),
    "dl2023": (
        "dl2023.human.qrels",
        tuple(
            f"dl2023.{m}"
            for m in ("Olz-gpt4o", "RMITIR-llama70B", "h2oloo-zeroshot1", "willia-umbrela1")
        ),
    ),
}

PAIRS = [
    *(f"trec_eval_tests/{q}~{r}" for q, r in TE_PAIRS),
    *(f"scifact~{r}" for r in SCIFACT_RUNS),
    *(f"covid~{r}" for r in COVID_RUNS),
    *(f"llm~{m}" for _, models in LLM_LABELS.values() for m in models),
    "trec_eval_tests/qrels.test~results.test+comments",
]
#: depth of the SciFact runs: deeper than -M100, shallow enough to keep the test quick
DEPTH = 150
STOPS = "trec_eval 10.0 stops (exit 4): a judged query has no results and -c is not given"


class Materials:
    """The (qrels, run) files of each pair; runs made here are written once, on first use."""

    def __init__(self, root: Path, work: Path) -> None:
        self.root, self.work = root, work

    def files(self, pair: str) -> tuple[Path, Path]:
        """The qrels and the run file of ``pair`` (an id of :data:`PAIRS`)."""
        family, _, run = pair.partition("~")
        if family == "scifact":
            qrels = self.root / "anserini_topics_qrels/beir/qrels.beir-v1.0.0-scifact.test.txt"
            return qrels, self.scifact_runs[run]
        if family == "covid":
            qrels = self.root / "anserini_topics_qrels/beir/qrels.beir-v1.0.0-trec-covid.test.txt"
            return qrels, self.root / "pyserini_fusion_tests" / run
        if family == "llm":
            human = next(h for h, models in LLM_LABELS.values() if run in models)
            return self.root / "llm_judgments" / human, self.llm_runs[run]
        folder, _, qrels_name = family.partition("/")
        te = self.root / folder
        if run == "results.test+comments":
            return te / qrels_name, self.edited_run
        return te / qrels_name, te / run

    @functools.cached_property
    def scifact_runs(self) -> dict[str, Path]:
        """Two BM25 runs over SciFact and the four fusions of them, as TREC files."""
        from assay.corpora import load_corpus
        from assay.runs.io import write_run
        from assay.runs.models import Run
        from assay.systems.bm25 import BM25System
        from assay.systems.fusion import fuse_files

        folder = self.root / "beir_scifact"
        qrels = self.root / "anserini_topics_qrels/beir/qrels.beir-v1.0.0-scifact.test.txt"
        judged = {line.split()[0] for line in qrels.read_text().splitlines() if line.strip()}
        queries = {}
        for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record["_id"] in judged:
                queries[record["_id"]] = record["text"]
        corpus = load_corpus(folder / "corpus.jsonl")
        out: dict[str, Path] = {}
        for name, k1, b in (("bm25-flat", 0.9, 0.4), ("bm25-std", 1.2, 0.75)):
            hits = (
                BM25System(corpus, k1=k1, b=b).prepare().search_many(list(queries.values()), DEPTH)
            )
            ranking = {
                q: [(h.doc_id, h.score) for h in hs] for q, hs in zip(queries, hits, strict=True)
            }
            out[name] = self.work / f"scifact.{name}.trec"
            write_run(Run.from_dict(ranking, name=name), out[name], tag=name)
        for method in ("rrf", "interpolation", "average", "minmax"):
            fused = fuse_files([out["bm25-flat"], out["bm25-std"]], method=method, name=method)
            out[method] = self.work / f"scifact.{method}.trec"
            write_run(fused, out[method], ties="given", tag=f"fused-{method}")
        return out

    @functools.cached_property
    def llm_runs(self) -> dict[str, Path]:
        """Each model's labels as a ranking: ``qid Q0 doc rank label model``, in file order."""
        out: dict[str, Path] = {}
        for _, models in LLM_LABELS.values():
            for model in models:
                lines, rank = [], {}
                labels = self.root / "llm_judgments" / f"{model}.qrels"
                if not labels.exists():
                    labels = labels.with_name(f"{model}.umbrela.qrels")
                for line in labels.read_text().splitlines():
                    qid, _, doc, label = line.split()
                    rank[qid] = rank.get(qid, 0) + 1
                    lines.append(f"{qid} Q0 {doc} {rank[qid]} {label} {model}")
                out[model] = self.work / f"{model}.run"
                out[model].write_text("\n".join(lines) + "\n")
        return out

    @functools.cached_property
    def edited_run(self) -> Path:
        """trec_eval's results.test as people write runs: comments, blanks, odd ranks, tags."""
        source = (self.root / "trec_eval_tests" / "results.test").read_text().splitlines()
        lines = ["# run STANDARD: written for trec_eval's tests", "", "   "]
        for i, line in enumerate(source):
            qid, q0, doc, rank, score, tag = line.split()
            if i % 7 == 0:
                rank = f"r{rank}"  # trec_eval does not read the rank
            if i >= len(source) - 40:
                tag = "LAST"  # trec_eval's runid is the last line's tag
            extra = " trailing text" if i % 11 == 0 else ""
            lines.append(f"{qid}\t{q0} {doc}  {rank} {score} {tag}{extra}")
            if i % 250 == 0:
                lines += ["", "  # a comment between queries", "\t"]
        path = self.work / "results.test+comments"
        path.write_text("\n".join(lines) + "\n")
        return path


@pytest.fixture(scope="module")
def materials(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Materials:
    return Materials(shared_data, tmp_path_factory.mktemp("trec_eval_pairs"))


@pytest.mark.parametrize("options", list(OPTION_SETS.values()), ids=list(OPTION_SETS))
@pytest.mark.parametrize("pair", PAIRS)
def test_assay_prints_what_trec_eval_prints(
    trec_eval_bin: Path, materials: Materials, pair: str, options: list[str]
) -> None:
    qrels, run = materials.files(pair)
    args = ["-q", "-m", "all_trec", *options, str(qrels), str(run)]
    expected = run_trec_eval(trec_eval_bin, args, timeout=120)
    if expected.returncode == 4 and b"not found in qrels" in expected.stderr:
        pytest.skip(STOPS)
    assert expected.returncode == 0, expected.stderr
    code, out, err = assay_trec_eval_here(args)
    assert code == 0, err
    if out != expected.stdout:
        ours, theirs = out.decode().splitlines(), expected.stdout.decode().splitlines()
        diff = [(a, b) for a, b in zip(ours, theirs, strict=False) if a != b]
        pytest.fail(f"{len(diff)} lines differ ({len(ours)} vs {len(theirs)}); first: {diff[:3]}")


def test_evaluate_stays_strict_where_trec_eval_reads_on(materials: Materials) -> None:
    """``assay evaluate`` (load_run) refuses the comment lines ``assay trec-eval`` skips."""
    from assay.core.errors import InputError
    from assay.runs.io import load_run

    with pytest.raises(InputError) as caught:
        load_run(materials.edited_run, format="trec")
    assert any(p.line == 1 for p in caught.value.problems)
