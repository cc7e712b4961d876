"""The executor option: one model, one flag, one environment variable; local loads nothing new."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from assay.core.errors import UsageError
from assay.executors import ExecutorOptions, current, current_options, options_from, use

ROOT = Path(__file__).resolve().parents[2]


def test_every_field_of_the_option_model_is_described() -> None:
    for name, field in ExecutorOptions.model_fields.items():
        assert field.description, name
    assert ExecutorOptions().executor == "local"


def test_environment_sets_the_default_and_a_bad_value_names_the_variable(monkeypatch) -> None:
    monkeypatch.setenv("ASSAY_EXECUTOR", "ray")
    assert current_options().executor == "ray"
    monkeypatch.setenv("ASSAY_EXECUTOR", "dask")
    with pytest.raises(UsageError, match=r"ASSAY_EXECUTOR"):
        options_from(None)
    monkeypatch.delenv("ASSAY_EXECUTOR")
    with use("local") as executor:
        assert executor.name == "local"
    assert current().name == "local"


def test_unknown_executor_flag_exits_2_naming_the_flag(tmp_path: Path) -> None:
    qrels = tmp_path / "q.jsonl"
    qrels.write_text('{"query_id": "q1", "query": "x", "relevant": {"d1": 1}}\n')
    run = tmp_path / "r.trec"
    run.write_text("q1 Q0 d1 1 1.0 t\n")
    cmd = [sys.executable, "-c", "from assay.cli import main; main()"]
    done = subprocess.run(
        [*cmd, "evaluate", str(qrels), str(run), "--executor", "dask", "--no-record"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "--executor" in done.stderr and "dask" in done.stderr
    assert "Traceback" not in done.stderr


def test_local_commands_never_import_ray(tmp_path: Path) -> None:
    """Importing assay and running a command on the local executor loads no Ray."""
    qrels = tmp_path / "q.jsonl"
    qrels.write_text('{"query_id": "q1", "query": "x", "relevant": {"d1": 1}}\n')
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "a.trec").write_text("q1 Q0 d2 1 2.0 t\n")
    (shards / "b.trec").write_text("q1 Q0 d1 2 1.0 t\n")
    code = (
        "import sys, assay\n"
        "from assay.cli import main\n"
        "try:\n"
        f"    main(['evaluate', {str(qrels)!r}, {str(shards)!r}, '--no-record', '-f', 'json'])\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
        "assert 'ray' not in sys.modules, 'ray was imported'\n"
        "print('no ray')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("no ray")


def test_local_shuffle_combines_part_k_of_every_item_in_order() -> None:
    from assay.executors.local import LocalExecutor

    def split(shared: int, item: str) -> tuple:
        return (item.upper(), *[f"{item}{k * shared}" for k in range(3)])

    heads, combined = LocalExecutor().shuffle(
        split, ["a", "b"], 3, lambda s, parts: "+".join(parts), shared=10
    )
    assert heads == ["A", "B"] and combined == ["a0+b0", "a10+b10", "a20+b20"]
