"""`judge clicks` over a UBI log in shards on two Ray nodes: the result of one file, locally.

The files are read by one task each, which cuts them into shards of query ids; the click
models' statistics are computed by one task per shard (on both nodes, as Ray's state API
shows) and reduced on the driver, which runs the EM iterations on them."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_ray import cli, now_ms, same_json

pytestmark = pytest.mark.ray

#: Fields that say when, where and from which files, not what.
VOLATILE = ("created_at", "environment", "files")


def _parts(whole: Path, folder: Path) -> list[str]:
    """The log in four files: a search's queries, impressions and clicks land in several."""
    lines = whole.read_text().splitlines()
    pairs = len(lines) // 2  # bulk NDJSON: an index line, then its record
    shards = []
    for i in range(4):
        part = lines[2 * (pairs * i // 4) : 2 * (pairs * (i + 1) // 4)]
        shard = folder / f"part-{i}.ndjson"
        shard.write_text("\n".join(part) + "\n")
        shards.append(str(shard))
    return shards


@pytest.mark.parametrize("model", ["pbm", "dbn", "coec"])
def test_sharded_click_log_gives_the_one_file_result(
    on_ray, shared_data: Path, tmp_path: Path, model: str
) -> None:
    whole = shared_data / "ubi_chorus" / "ubi_queries_events.ndjson"
    shards = _parts(whole, tmp_path)
    common = ["judge", "clicks", "--positions", "0", "--application", "esci_ubi_sample"]
    common += ["--model", model]
    since = now_ms()
    cli(*common, str(whole), "--json", str(tmp_path / "one.json"), "--executor", "local")
    cli(*common, *shards, "--json", str(tmp_path / "ray.json"), "--executor", "ray")
    same_json(tmp_path / "ray.json", tmp_path / "one.json", VOLATILE)
    # the files were read by Ray tasks (SPREAD is best effort: four short tasks on a fresh
    # cluster may all land on one node); the statistics' shards ran on both nodes
    assert len(on_ray.nodes_of("assay:_split_file", since, want=1)) >= 1
    assert len(on_ray.nodes_of("assay:_shard_stats", since)) == 2


def test_a_bad_log_gives_the_local_error(
    on_ray, shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first bad record of the log (found by whichever shard holds it), and a response
    logged twice across files (seen by the driver only), refused as locally."""
    shards = _parts(shared_data / "ubi_chorus" / "ubi_queries_events.ndjson", tmp_path)
    again = tmp_path / "part-4.ndjson"
    again.write_text(Path(shards[1]).read_text())
    for args in (
        ["--positions", "1", *shards],  # the sample counts from 0
        ["--positions", "0", *shards, str(again)],
    ):
        said = {}
        for executor in ("local", "ray"):
            capsys.readouterr()
            cli("judge", "clicks", *args, "--executor", executor, code=2)
            said[executor] = capsys.readouterr().err
        assert said["ray"] == said["local"] and "error" in said["ray"]
