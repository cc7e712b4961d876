"""``assay tune --executor ray``: the parameter sets run as tasks on two Ray nodes, and the
tuning result is the one a local run writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_ray import cli, now_ms, stripped

from tuning._tuning import OPTIMUM, judgments, write_system

pytestmark = pytest.mark.ray

#: Fields that say when or how (cached or not), not what.
VOLATILE = ("created_at", "assay_version", "computed", "cached")


def test_tune_on_two_nodes_equals_local(on_ray, tmp_path: Path) -> None:
    spec = write_system(tmp_path, "optimum", OPTIMUM)
    path = judgments(tmp_path, n=30)
    since = now_ms()
    out = {}
    for executor in ("local", "ray"):
        out[executor] = tmp_path / f"{executor}.json"
        cli(
            "tune", str(path), "--system", spec,
            "--param", "params.alpha=0.0,0.3,0.6,0.9", "-m", "nDCG@10", "-m", "RR",
            "--folds", "3", "--no-cache", "--no-record", "-q",
            "--executor", executor, "-o", str(out[executor]),
        )  # fmt: skip
    local = json.loads(out["local"].read_text())
    ray = json.loads(out["ray"].read_text())
    assert ray["computed"] == local["computed"] == 5
    assert stripped(ray, VOLATILE) == stripped(local, VOLATILE)
    assert local["recommended"]["params"] == {"params.alpha": 0.6}
    # the five runs were Ray tasks (five short tasks may all land on one node of the two:
    # where they ran is Ray's choice, not assay's, so only that they ran as tasks is checked)
    assert len(on_ray.nodes_of("assay:_run_one", since)) >= 1
