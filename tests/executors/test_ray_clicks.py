"""`judge clicks` over a UBI log in shards on two Ray nodes: the result of one file, locally.

The files are read by one task each; the click models' statistics are computed by one
task per shard of query ids (on both nodes, as Ray's state API shows) and reduced on
the driver, which runs the EM iterations on them."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_ray import cli, now_ms, same_json

pytestmark = pytest.mark.ray

#: Fields that say when, where and from which files, not what.
VOLATILE = ("created_at", "environment", "files")


@pytest.mark.parametrize("model", ["pbm", "dbn", "coec"])
def test_sharded_click_log_gives_the_one_file_result(
    on_ray, shared_data: Path, tmp_path: Path, model: str
) -> None:
    whole = shared_data / "ubi_chorus" / "ubi_queries_events.ndjson"
    lines = whole.read_text().splitlines()
    pairs = len(lines) // 2  # bulk NDJSON: an index line, then its record
    shards = []
    for i in range(4):  # a search's queries, impressions and clicks land in different shards
        part = lines[2 * (pairs * i // 4) : 2 * (pairs * (i + 1) // 4)]
        shard = tmp_path / f"part-{i}.ndjson"
        shard.write_text("\n".join(part) + "\n")
        shards.append(str(shard))
    common = ["judge", "clicks", "--positions", "0", "--application", "esci_ubi_sample"]
    common += ["--model", model]
    since = now_ms()
    cli(*common, str(whole), "--json", str(tmp_path / "one.json"), "--executor", "local")
    cli(*common, *shards, "--json", str(tmp_path / "ray.json"), "--executor", "ray")
    same_json(tmp_path / "ray.json", tmp_path / "one.json", VOLATILE)
    # the files were read by Ray tasks (SPREAD is best effort: four short tasks on a fresh
    # cluster may all land on one node); the statistics' shards are dealt over the nodes
    assert len(on_ray.nodes_of("assay:_read_one", since, want=1)) >= 1
    assert len(on_ray.nodes_of("assay:shard_stats", since)) == 2
