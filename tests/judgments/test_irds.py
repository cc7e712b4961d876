"""``irds:NAME``: judgments, queries and a corpus from the local ir_datasets cache, no download.

The cache is a temporary ``IR_DATASETS_HOME`` filled from ../shared/data/beir_scifact
in the layout ir_datasets keeps for ``beir/scifact`` (its source archive at
``beir/scifact/source.zip``), so ir_datasets reads it as if it had downloaded it.
Each check runs in a fresh interpreter: ir_datasets fixes its home when imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("ir_datasets")

ROOT = Path(__file__).resolve().parents[2]
SCIFACT = ROOT.parent / "shared" / "data" / "beir_scifact"
NAME = "irds:beir/scifact/test"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An ir_datasets home holding beir/scifact as ir_datasets caches it."""
    if not (SCIFACT / "qrels" / "test.tsv").is_file():
        pytest.skip("../shared/data/beir_scifact is not present")
    folder = tmp_path_factory.mktemp("irds_home")
    archive = folder / "beir" / "scifact" / "source.zip"
    archive.parent.mkdir(parents=True)
    with zipfile.ZipFile(archive, "w") as z:
        for name in ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "qrels/train.tsv"):
            z.write(SCIFACT / name, f"scifact/{name}")
    return folder


def _python(code: str, home: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "IR_DATASETS_HOME": str(home),
        "ASSAY_CACHE_DIR": str(tmp_path / "cache"),
        "ASSAY_RECORD": "0",
        "HTTPS_PROXY": "http://127.0.0.1:9",  # a download attempt would fail, not leave
        "HTTP_PROXY": "http://127.0.0.1:9",
    }
    return subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def test_judgments_and_queries_are_the_folders(home: Path, tmp_path: Path) -> None:
    trec = tmp_path / "test.qrels"  # the same qrels as TREC lines, texts from --queries irds:
    rows = (SCIFACT / "qrels" / "test.tsv").read_text().splitlines()[1:]
    trec.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in map(str.split, rows)))
    code = f"""
import json, assay
named = assay.load_judgments({NAME!r})
folder = assay.load_judgments({str(SCIFACT)!r})
trec = assay.load_judgments({str(trec)!r}, queries={NAME!r})
print(json.dumps({{
    "same_qrels": named.qrels_dict() == folder.qrels_dict() == trec.qrels_dict(),
    "versions": [named.version, folder.version, trec.version],
    "texts": [q.text for q in named] == [q.text for q in folder],
    "trec_texts": {{q.query_id: q.text for q in trec}} == {{q.query_id: q.text for q in folder}},
    "name": named.name, "queries": len(named),
}}))
"""
    done = _python(code, home, tmp_path)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["same_qrels"] and got["texts"] and got["trec_texts"]
    assert len(set(got["versions"])) == 1  # the same content: the same version
    assert (got["name"], got["queries"]) == ("beir/scifact/test", 300)


def test_a_system_reads_the_datasets_corpus(home: Path, tmp_path: Path) -> None:
    code = f"""
import json, assay
from assay.corpora.load import load_corpus
named, folder = load_corpus({NAME!r}), load_corpus({str(SCIFACT / "corpus.jsonl")!r})
source = assay.SourceOptions(system="bm25", no_cache=True)
by_name = assay.evaluate({NAME!r}, metrics=["nDCG@10"], source=source)
by_folder = assay.evaluate({str(SCIFACT)!r}, metrics=["nDCG@10"], source=source)
print(json.dumps({{
    "ids": named.ids == folder.ids,
    "ndcg": [by_name.aggregate["nDCG@10"], by_folder.aggregate["nDCG@10"]],
}}))
"""
    done = _python(code, home, tmp_path)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["ids"] and got["ndcg"][0] == got["ndcg"][1]


def test_the_command_line_takes_the_name(home: Path, tmp_path: Path) -> None:
    code = f"from assay.cli import main; main(['validate', {NAME!r}])"
    done = _python(code, home, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "format               irds" in done.stdout and "queries              300" in done.stdout


def test_a_dataset_not_in_the_cache_is_not_downloaded(tmp_path: Path) -> None:
    empty = tmp_path / "empty_home"
    empty.mkdir()
    code = f"from assay.cli import main; main(['evaluate', {NAME!r}, '-s', 'bm25'])"
    done = _python(code, empty, tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "not in the local ir_datasets cache" in done.stderr
    assert "Traceback" not in done.stderr
    assert not list(empty.rglob("*.zip"))  # nothing fetched
