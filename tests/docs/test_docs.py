"""Every code block of the README and the documentation runs as written, in order.

Each page gets a fresh copy of ``examples/``, its own history store and cache,
and an ``assay`` on PATH; blocks that call a model reach the local stub server
(``tests/llm_stub.py``) through the environment variables the pages use for the
endpoint. See ``docblocks.py`` for which blocks run and how.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import types
from pathlib import Path

import pytest
import yaml
from docblocks import ROOT, SRC, Block, blocks, run_commands, workspace

from assay.systems import config as system_config
from llm_stub import StubServer

sys.path.insert(0, str(ROOT / "docs" / "gen"))
import reference


def _nav_pages(nav: list) -> list[str]:
    out: list[str] = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            out += _nav_pages(value)
        else:
            out.append(value)
    return out


def _mkdocs() -> dict:
    # mkdocs.yml has no custom tags; the plain loader reads it
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


PAGES = ["README.md"] + [f"docs/{p}" for p in _nav_pages(_mkdocs()["nav"])]
SLOW_PAGES = {"docs/workflows/judges.md", "docs/workflows/compare.md", "docs/workflows/gates.md"}


@pytest.fixture(scope="module")
def stub():
    """One stub model server for every page of this module."""
    with StubServer() as server:
        yield server


_PAGE_ENV = ("ASSAY_QUIET", "MODEL_BASE_URL", "OPENAI_API_KEY", "SMALL_MODEL", "LARGE_MODEL")


def _env(tmp: Path, bin_dir: Path, stub: StubServer) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=f"{SRC}{os.pathsep}{env.get('PYTHONPATH', '')}".rstrip(os.pathsep),
        ASSAY_STORE=f"sqlite:///{tmp / '.assay' / 'history.db'}",
        ASSAY_CACHE_DIR=str(tmp / ".assay" / "cache"),
        ASSAY_QUIET="1",
        COLUMNS="120",
        # the endpoint and model the pages' [models.*] tables read from the environment
        MODEL_BASE_URL=stub.base_url,
        OPENAI_API_KEY="sk-docs-test",
        SMALL_MODEL="stub-small",
        LARGE_MODEL="stub-large",
    )
    return env


def _run_python(block: Block, namespace: dict) -> None:
    code = compile(block.body, block.where, "exec")
    exec(code, namespace)


@pytest.mark.parametrize(
    "page",
    [pytest.param(p, marks=pytest.mark.slow) if p in SLOW_PAGES else p for p in PAGES],
)
def test_code_blocks_run_in_order(
    page: str, tmp_path: Path, stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = blocks(ROOT / page)
    if not any(b.lang in ("sh", "python") for b in found):
        pytest.skip(f"{page} has no runnable block")
    bin_dir = workspace(tmp_path)
    env = _env(tmp_path, bin_dir, stub)
    for key in (*_PAGE_ENV, "ASSAY_STORE", "ASSAY_CACHE_DIR"):
        monkeypatch.setenv(key, env[key])
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # modules a page writes (search.py) import
    page_module = types.ModuleType("docs_page")  # a real module: dataclasses look it up
    monkeypatch.setitem(sys.modules, "docs_page", page_module)
    namespace = page_module.__dict__
    # system types a page registers stay with that page
    monkeypatch.setattr(system_config, "_REGISTERED", dict(system_config._REGISTERED))
    for block in found:
        if block.title:  # a file the page hands to the blocks after it
            target = tmp_path / block.title
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.body, encoding="utf-8")
            if block.lang == "toml":
                tomllib.loads(block.body)
        elif block.lang == "sh":
            failures = run_commands(block, tmp_path, env)
            assert not failures, failures[0]
        elif block.lang == "python":
            _run_python(block, namespace)
        elif block.lang == "toml" and not block.title:
            tomllib.loads(block.body)


def test_every_page_in_the_nav_exists() -> None:
    missing = [p for p in PAGES if not (ROOT / p).is_file()]
    assert not missing


def test_cli_reference_covers_every_command_and_option() -> None:
    text = reference.cli_markdown()
    names = reference.cli_option_names()
    assert len(names) >= 25  # the app's commands and groups, not an empty tree
    for path, spelled in names.items():
        section = text.split(f"## assay {path} {{#", 1)
        assert len(section) == 2, f"no section for assay {path}"
        body = section[1].split("\n## assay ", 1)[0]
        for name in spelled:
            assert name in body, f"assay {path}: {name} is not documented"


def test_measure_table_lists_every_registry_family() -> None:
    from assay.metrics.registry import FAMILY_LIST, PREFERENCE_MEASURES

    table = reference.measures_markdown()
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    for fam in FAMILY_LIST:
        row = next((r for r in rows if r.startswith(f"| `{fam.usage}` |")), None)
        assert row is not None, f"{fam.name} is missing from the measure table"
        for alias in fam.aliases:
            assert f"`{alias}`" in row
        for trec, _ in fam.trec:
            assert f"`{trec}`" in row
    for pref in PREFERENCE_MEASURES:
        assert f"| `{pref.name}` |" in table


def test_result_formats_table_lists_every_kind_with_its_formats() -> None:
    from assay.report.kinds import KINDS

    text = reference.result_formats_markdown()
    rows = {line.split(" | ")[0].strip("| `"): line for line in text.splitlines()[2:]}
    assert set(rows) == set(KINDS)
    for kind, entry in KINDS.items():
        assert all(f"`{fmt}`" in rows[kind] for fmt in entry.formats), kind
    assert "<!-- generated: result-formats -->" in (ROOT / "docs/reference/formats.md").read_text()


def test_result_schemas_cover_every_result_kind() -> None:
    from assay.results.models import RESULT_MODELS

    text = reference.result_schemas_markdown()
    for kind in RESULT_MODELS:
        assert f"### `{kind}`" in text
    assert text.count('"properties"') >= len(RESULT_MODELS)


def test_quick_start_and_make_demo_say_how_to_get_assay_on_path() -> None:
    """The seam a new user hit: `assay` is not on PATH after `make demo`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert ". .venv/bin/activate" in quick_start and ".venv/bin/assay" in quick_start
    getting_started = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    assert ". .venv/bin/activate" in getting_started
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    dry = subprocess.run(
        [make, "-n", "--no-print-directory", "demo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("MAKE")},
    )
    last = dry.stdout.strip().splitlines()[-1]
    assert last.startswith("echo") and ". .venv/bin/activate" in last and ".venv/bin/assay" in last


def test_api_reference_covers_every_public_name() -> None:
    import assay

    text = reference.api_markdown()
    for name in assay.__all__:
        if not name.startswith("_"):
            assert f".{name}\n" in text, f"assay.{name} is missing from the API reference"


def test_readme_is_a_front_page() -> None:
    """The README stays a front page of at most 250 lines; the rest is in the site."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines"
