"""``assay gate`` end to end: exit codes, reports, baselines from files and the store."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from _gate_helpers import corpus_ids, scifact_runs, write_trec

from assay.cli.app import main
from assay.store.api import open_store


def _run(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return int(exc.value.code or 0)


# --------------------------------------------------------------------------- constructed
@pytest.fixture
def lang_case(tmp_path: Path) -> dict[str, Path]:
    """60 queries (en 40, de 15, fr 5), each with one relevant doc; three runs.

    ``base``: relevant doc at a seeded rank 1..4. ``same``: identical.
    ``hidden``: English moves up to rank 1, German falls out of the top 10.
    """
    rng = np.random.default_rng(7)
    langs = ["en"] * 40 + ["de"] * 15 + ["fr"] * 5
    lines, base, hidden = [], {}, {}
    for i, lang in enumerate(langs):
        qid = f"q{i:02d}"
        lines.append(
            json.dumps(
                {
                    "query_id": qid,
                    "query": f"question {i}",
                    "relevant": {f"rel{i}": 1},
                    "language": lang,
                }
            )
        )
        filler = [f"doc{i}-{j}" for j in range(20)]
        rank = int(rng.integers(1, 5))
        base[qid] = [*filler[: rank - 1], f"rel{i}", *filler[rank - 1 :]]
        if lang == "en":
            hidden[qid] = [f"rel{i}", *filler]
        elif lang == "de":
            hidden[qid] = [*filler[:12], f"rel{i}", *filler[12:]]
        else:
            hidden[qid] = base[qid]
    qrels = tmp_path / "qrels.jsonl"
    qrels.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {
        "qrels": qrels,
        "base": write_trec(base, tmp_path / "base.trec", "base"),
        "same": write_trec(base, tmp_path / "same.trec", "same"),
        "hidden": write_trec(hidden, tmp_path / "hidden.trec", "hidden"),
        "store": tmp_path / "h.db",
        "dir": tmp_path,
    }


def _baseline_file(case: dict[str, Path]) -> Path:
    out = case["dir"] / "baseline.json"
    argv = ["evaluate", str(case["qrels"]), str(case["base"]), "-m", "nDCG@10", "-f", "json"]
    assert _run([*argv, "-o", str(out)]) == 0
    return out


def test_exit_codes_and_reports(lang_case: dict[str, Path]) -> None:
    baseline = _baseline_file(lang_case)
    store = f"sqlite:///{lang_case['store']}"
    common = ["--baseline", str(baseline), "-m", "nDCG@10", "--store", store]
    assert _run(["gate", str(lang_case["qrels"]), str(lang_case["same"]), *common]) == 0
    # the regression hidden in the mean: passes without --by, fails with it
    assert _run(["gate", str(lang_case["qrels"]), str(lang_case["hidden"]), *common]) == 0
    md, junit = lang_case["dir"] / "gate.md", lang_case["dir"] / "gate.xml"
    rc = _run(
        [
            "gate",
            str(lang_case["qrels"]),
            str(lang_case["hidden"]),
            *common,
            "--by",
            "language",
            "--markdown",
            str(md),
            "--junit",
            str(junit),
        ]
    )
    assert rc == 1
    text = md.read_text()
    assert "failed: regression" in text and "language=de: nDCG@10 dropped by" in text
    assert "listed but not gated: language=fr." in text
    root = ET.parse(junit).getroot()
    suite = root.find("testsuite")
    assert suite is not None and suite.get("failures") == "1" and suite.get("skipped") == "1"
    names = {tc.get("name"): tc for tc in suite.iter("testcase")}
    assert set(names) == {
        "nDCG@10 [all queries]",
        "nDCG@10 [language=de]",
        "nDCG@10 [language=en]",
        "nDCG@10 [language=fr]",
    }
    assert names["nDCG@10 [language=de]"].find("failure") is not None
    assert names["nDCG@10 [language=fr]"].find("skipped") is not None
    with open_store(store) as st:
        kinds = [e.kind for e in st.list(kind=None)]
        gates = [st.get(e.run_id) for e in st.list(kind="gate")]
    assert kinds.count("gate") == 3 and kinds.count("evaluation") == 3
    assert [g.passed for g in gates] == [True, True, False]
    assert all(g.candidate_run_id is not None for g in gates)


def test_invalid_input_exits_2(lang_case: dict[str, Path], tmp_path: Path) -> None:
    baseline = _baseline_file(lang_case)
    store = ["--store", f"sqlite:///{lang_case['store']}"]
    q, run = str(lang_case["qrels"]), str(lang_case["same"])
    assert _run(["gate", q, run, "--baseline", str(tmp_path / "nope.json"), *store]) == 2
    assert _run(["gate", q, run, "--baseline", str(baseline), "--mode", "lax", *store]) == 2
    assert _run(["gate", q, run, "--baseline", str(baseline), "-m", "P@5", *store]) == 2
    assert _run(["gate", q, "--baseline", str(baseline), *store]) == 2  # no run, no system
    assert _run(["gate", q, run, "--baseline", "last", *store]) == 2  # nothing recorded yet
    assert _run(["gate", q, run, "--baseline", "12345", *store]) == 2  # no such run id
    # a baseline scored on another version of the judgments
    data = json.loads(baseline.read_text())
    data["judgments"]["version"] = "sha256:0000000000000000"
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    assert _run(["gate", q, run, "--baseline", str(old), *store]) == 2
    assert _run(["gate", q, run, "--baseline", str(old), "--allow-version-mismatch", *store]) == 0


def test_baseline_last_and_run_id(lang_case: dict[str, Path]) -> None:
    store = f"sqlite:///{lang_case['store']}"
    q = str(lang_case["qrels"])
    rc = _run(
        [
            "evaluate",
            q,
            str(lang_case["base"]),
            "-m",
            "nDCG@10",
            "--record",
            "--store",
            store,
            "-f",
            "json",
            "-o",
            str(lang_case["dir"] / "e.json"),
        ]
    )
    assert rc == 0
    with open_store(store) as st:
        [entry] = st.list()
    assert entry.system == "base"
    # 'last' finds the evaluation of the same system name on the same judgment set
    assert _run(["gate", q, str(lang_case["base"]), "--baseline", "last", "--store", store]) == 0
    assert (
        _run(
            [
                "gate",
                q,
                str(lang_case["hidden"]),
                "--baseline",
                str(entry.run_id),
                "--store",
                store,
                "--by",
                "language",
            ]
        )
        == 1
    )
    with open_store(store) as st:
        gates = [st.get(e.run_id) for e in st.list(kind="gate")]
    assert [g.baseline_run_id for g in gates] == [entry.run_id, entry.run_id]


def test_no_record_leaves_store_alone(lang_case: dict[str, Path]) -> None:
    baseline = _baseline_file(lang_case)
    store = f"sqlite:///{lang_case['store']}"
    rc = _run(
        [
            "gate",
            str(lang_case["qrels"]),
            str(lang_case["same"]),
            "--baseline",
            str(baseline),
            "--store",
            store,
            "--no-record",
        ]
    )
    assert rc == 0
    assert not lang_case["store"].exists()


# --------------------------------------------------------------------------- SciFact
@pytest.fixture(scope="module")
def scifact_case(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from assay.judgments.load import load_judgments

    folder = shared_data / "beir_scifact"
    js = load_judgments(folder)
    base, worse = scifact_runs(js.qrels_dict(), corpus_ids(folder / "corpus.jsonl"), seed=11)
    out = tmp_path_factory.mktemp("scifact")
    return {
        "folder": folder,
        "base": write_trec(base, out / "base.trec", "scifact-system"),
        "worse": write_trec(worse, out / "worse.trec", "scifact-system"),
        "dir": out,
    }


def test_scifact_real_drop_fails_identical_passes(scifact_case: dict[str, Path]) -> None:
    d = scifact_case["dir"]
    baseline = d / "baseline.json"
    assert (
        _run(
            [
                "evaluate",
                str(scifact_case["folder"]),
                str(scifact_case["base"]),
                "-m",
                "nDCG@10",
                "-m",
                "RR",
                "-f",
                "json",
                "-o",
                str(baseline),
            ]
        )
        == 0
    )
    store = ["--store", f"sqlite:///{d / 'h.db'}"]
    argv = [
        "gate",
        str(scifact_case["folder"]),
        "--baseline",
        str(baseline),
        "-m",
        "nDCG@10",
        "-m",
        "RR",
        *store,
    ]
    assert _run([*argv[:2], str(scifact_case["base"]), *argv[2:]]) == 0
    gate_json = d / "gate.json"
    assert _run([*argv[:2], str(scifact_case["worse"]), *argv[2:], "--json", str(gate_json)]) == 1
    gate = json.loads(gate_json.read_text())
    assert gate["n_paired"] == 300 and not gate["passed"]
    assert {c["metric"] for c in gate["checks"] if not c["passed"]} == {"nDCG@10", "RR"}
    assert all(c["ci_high"] < 0 for c in gate["checks"])


def _worse_copy(case: dict[str, Path], name: str) -> Path:
    """The ``base`` run with every relevant doc below rank 10, under the TREC tag ``name``."""
    ranking: dict[str, list[str]] = {}
    for line in case["base"].read_text().splitlines():
        qid, _, doc, *_ = line.split()
        ranking.setdefault(qid, []).append(doc)
    worse = {
        q: [d for d in docs if not d.startswith("rel")] + [d for d in docs if d.startswith("rel")]
        for q, docs in ranking.items()
    }
    return write_trec(worse, case["dir"] / f"{name}-worse.trec", name)


def test_failed_gate_does_not_become_the_next_baseline(lang_case: dict[str, Path]) -> None:
    """No ratchet: a failing candidate recorded by one gate is not ``last`` for the next."""
    store = f"sqlite:///{lang_case['store']}"
    q = str(lang_case["qrels"])
    worse = str(_worse_copy(lang_case, "base"))  # same system name as the baseline
    rc = _run(["evaluate", q, str(lang_case["base"]), "-m", "nDCG@10", "--record",
               "--store", store, "-f", "json", "-o", str(lang_case["dir"] / "e.json")])  # fmt: skip
    assert rc == 0
    with open_store(store) as st:
        [baseline] = st.list()
    gate = ["gate", q, worse, "--baseline", "last", "--store", store]
    assert _run(gate) == 1
    assert _run(gate) == 1  # the first failure's candidate is not the baseline
    # a passing gate's candidate is a valid baseline for the next gate
    assert _run(["gate", q, str(lang_case["same"]), "--baseline", str(baseline.run_id),
                 "--store", store]) == 0  # fmt: skip
    with open_store(store) as st:
        gates = [st.get(e.run_id) for e in st.list(kind="gate")]
        roles = {e.run_id: e.role for e in st.list(kind="evaluation")}
    assert [g.passed for g in gates] == [False, False, True]
    assert [g.baseline_run_id for g in gates] == [baseline.run_id] * 3
    assert roles[baseline.run_id] is None
    assert [roles[g.candidate_run_id] for g in gates] == [
        "gate-failed",
        "gate-failed",
        "gate-passed",
    ]
    with open_store(store) as st:  # 'same' has another system name: base's last is unchanged
        assert st.last_id("base", "qrels") == baseline.run_id
    assert _run([*gate, "--no-record"]) == 1


def test_broken_store_warns_and_keeps_verdict_and_reports(
    lang_case: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = _baseline_file(lang_case)
    blocker = lang_case["dir"] / "not-a-folder"
    blocker.write_text("x")
    q, md = str(lang_case["qrels"]), lang_case["dir"] / "gate.md"
    argv = ["gate", q, "--baseline", str(baseline), "--store", f"sqlite:///{blocker / 'h.db'}"]
    capsys.readouterr()
    assert _run([*argv[:2], str(lang_case["same"]), *argv[2:]]) == 0
    worse = str(_worse_copy(lang_case, "base"))
    assert _run([*argv[:2], worse, *argv[2:], "--markdown", str(md)]) == 1
    err = capsys.readouterr().err
    assert err.count("assay: warning: the result was not recorded") == 2
    assert "failed: regression" in md.read_text()
