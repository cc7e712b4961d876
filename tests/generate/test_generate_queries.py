"""Synthetic queries on SciFact against the stub: marked, deduplicated, measured against people."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay.corpora.models import Corpus
from assay.generate.queries import generate_queries, normalise, overlap
from assay.providers.call_cache import CallCache
from assay.providers.client import ChatClient
from assay.providers.model_config import get_model


def _client(writer_toml: Path, tmp_path: Path) -> ChatClient:
    return ChatClient(get_model("writer", writer_toml), cache=CallCache(tmp_path / "cache"))


def test_rows_are_marked_and_duplicates_removed(writer_toml: Path, tmp_path: Path) -> None:
    corpus = Corpus.from_records(
        [
            {
                "id": "a",
                "text": "Vitamin D deficiency raises the risk of bone fractures in adults.",
            },
            {"id": "b", "text": "A DUPLICATE passage about nothing in particular."},
            {"id": "c", "text": "Another DUPLICATE passage that repeats itself."},
        ],
        text_fields=["text"],
    )
    with _client(writer_toml, tmp_path) as client:
        result = generate_queries(corpus, client, n=3, seed=1)
    assert result.requested == 3 and result.duplicates_removed == 1
    assert len(result.rows) == 2
    assert len({normalise(r["query"]) for r in result.rows}) == 2
    for row in result.rows:
        assert row["source"] == "model" and row["synthetic"] is True
        assert row["model"] == "stub-writer" and row["prompt_hash"].startswith("sha256:")
        (doc,) = row["relevant"]
        assert row["overlap"] == pytest.approx(
            overlap(row["query"], corpus.get(doc)["text"]), abs=1e-4
        )
    vitamin = next(r for r in result.rows if r["relevant"] == {"a": 1})
    assert vitamin["overlap"] == 1.0  # the stub copies the passage's words


def test_scifact_bm25_favours_synthetic_queries(
    shared_data: Path, writer_toml: Path, tmp_path: Path
) -> None:
    from assay.corpora.load import load_corpus
    from assay.judgments.load import load_judgments

    folder = shared_data / "beir_scifact"
    corpus = load_corpus(folder / "corpus.jsonl")
    human = load_judgments(folder)
    with _client(writer_toml, tmp_path) as client:
        result = generate_queries(corpus, client, n=40, seed=0, human=human)
    assert result.requested == 40 and len(result.rows) + result.duplicates_removed == 40
    assert result.human.queries == 300  # SciFact test claims with a relevant passage
    assert result.synthetic.overlap_mean > result.human.overlap_mean
    assert result.synthetic.mrr > result.human.mrr
    assert result.findings[0].startswith("BM25 scores higher on the synthetic queries")
    assert "favour lexical systems" in result.findings[1]


def test_cli_writes_jsonl_and_says_so(writer_toml: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"_id": f"d{i}", "title": "", "text": f"Passage {i} about {w} cells."})
            + "\n"
            for i, w in enumerate(["stem", "liver", "blood", "nerve"])
        ),
        encoding="utf-8",
    )
    out = tmp_path / "syn.jsonl"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    args = [
        "generate",
        "queries",
        "--corpus",
        str(corpus),
        "--model",
        "writer",
        "--config",
        str(writer_toml),
        "-n",
        "4",
        "-o",
        str(out),
        "--cache-dir",
        str(tmp_path / "c"),
    ]
    run = subprocess.run(
        [sys.executable, "-c", "from assay.cli import main; main()", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert "wrote 4 synthetic queries" in run.stdout and "source = model" in run.stdout
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 4 and all(r["synthetic"] for r in rows)
