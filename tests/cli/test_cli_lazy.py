"""A command loads only its own module: each entry of ``_MODULES_OF`` defines its command."""

from __future__ import annotations

import json
import subprocess
import sys


def test_each_command_is_defined_by_the_modules_it_loads() -> None:
    # one fresh interpreter: load each command's modules in turn; the command must be
    # among those they newly register (a command another module registered fails here)
    code = """
import importlib, json
app_module = importlib.import_module("assay.cli.app")
app = app_module.app
def names():
    return {c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands} | {
        g.name for g in app.registered_groups}
found, seen = {}, names()
for command, modules in app_module._MODULES_OF.items():
    for m in modules:
        importlib.import_module(m)
    now = names()
    found[command] = sorted(now - seen)
    seen = now
print(json.dumps({"found": found, "all": sorted(seen)}))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    got = json.loads(out.stdout)
    for command, new in got["found"].items():
        assert command in new, f"{command}: its modules registered {new}"
    assert set(got["found"]) == set(got["all"]), "every top-level command has its modules"


def test_a_command_runs_with_only_its_module_loaded(tmp_path) -> None:
    code = (
        "import sys, importlib; from assay.cli.app import main\n"
        "try:\n    main(['trec-eval', '--help'])\nexcept SystemExit as e:\n"
        "    loaded = sorted(m for m in sys.modules if m.startswith('assay.cli.'))\n"
        "    print(e.code, ' '.join(loaded))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    code_, loaded = out.stdout.strip().splitlines()[-1].split(" ", 1)
    assert code_ == "0"
    assert "assay.cli.trec_eval" in loaded.split()
    assert "assay.cli.judge_models" not in loaded.split()
