"""One two-node Ray cluster on loopback for every Ray test (start-up costs ~15-25 s here).

Ray's own test harness (:class:`ray.cluster_utils.Cluster`) starts a head and a
second node of one CPU each; the fixture shuts both down (never ``ray stop``,
which would end every Ray process on the machine). Without Ray installed the
tests are skipped with the reason.
"""

from __future__ import annotations

import importlib.util
import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest

HAVE_RAY = importlib.util.find_spec("ray") is not None
NO_RAY = "Ray is not installed (pip install 'assay[ray]'; the dev extra has it)"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TwoNodes:
    """The test cluster: its Ray handle, the second node, the dashboard address."""

    def __init__(self, cluster: Any, second: Any, dashboard: str) -> None:
        self.cluster, self.second, self.dashboard = cluster, second, dashboard

    def nodes_of(self, task_name: str, since_ms: int = 0, want: int = 2) -> set[str]:
        """Node ids where tasks named ``task_name`` created after ``since_ms`` ran, as Ray's
        state API lists them; asked again (up to 120 times, 0.5 s apart) until ``want`` nodes
        show, since task events reach the API a moment after the tasks end (on a loaded
        machine, more than 10 s after: a CI run saw one node of two; later one saw one
        node of two after 30 s of asking, so it asks for up to 60 s)."""
        import time

        from ray.util.state import list_tasks

        found: set[str] = set()
        for _ in range(120):
            tasks = list_tasks(
                address=self.dashboard,
                filters=[("name", "=", task_name)],
                limit=10_000,
                detail=True,
                raise_on_missing_output=False,
            )
            found = {
                t.node_id for t in tasks if t.node_id and (t.creation_time_ms or 0) >= since_ms
            }
            if len(found) >= want:
                break
            time.sleep(0.5)
        return found


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[TwoNodes]:
    """A head and one more node (1 CPU each) on 127.0.0.1, shared by every Ray test."""
    if not HAVE_RAY:
        pytest.skip(NO_RAY)
    # every node on loopback (Ray's own switch for single-machine clusters); read at import
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    import ray
    from ray.cluster_utils import Cluster

    port = _free_port()
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": True, "dashboard_port": port},
    )
    try:
        second = cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False)
        yield TwoNodes(cluster, second, f"http://127.0.0.1:{port}")
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.fixture
def on_ray(ray_cluster: TwoNodes) -> Iterator[TwoNodes]:
    """The test cluster, with the executor set to ray for the test's body."""
    from assay.executors import ExecutorOptions, use

    with use(ExecutorOptions(executor="ray")):
        yield ray_cluster
