"""A writer process for the durability tests (run as a script, not collected).

    python _store_worker.py URL WORKER COUNT [--start-file F] [--hang-at N] [--big]

Records COUNT results named ``w{WORKER}-{i}`` and prints each run id after its
commit. ``--start-file`` waits until that file exists (a start barrier).
``--hang-at N`` prints ``MID`` and sleeps *inside* the transaction of the
(N+1)-th result, after its row was inserted, so the parent can SIGKILL it
mid-write.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _store_helpers import make_result


def main() -> None:
    """Parse the arguments and write."""
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("worker", type=int)
    parser.add_argument("count", type=int)
    parser.add_argument("--start-file")
    parser.add_argument("--hang-at", type=int)
    parser.add_argument("--big", action="store_true")
    args = parser.parse_args()

    from sqlalchemy import event

    from assay.store.api import open_store

    store = open_store(args.url)
    done = {"n": 0}

    if args.hang_at is not None:

        @event.listens_for(store.engine, "before_cursor_execute")
        def _hang(conn, cursor, statement, params, context, executemany) -> None:
            if done["n"] == args.hang_at and "INSERT INTO result_metrics" in statement:
                print("MID", flush=True)
                time.sleep(120)

    if args.start_file:
        while not Path(args.start_file).exists():
            time.sleep(0.005)
    queries = 2000 if args.big else 20
    for i in range(args.count):
        result = make_result(f"w{args.worker}-{i}", tag=f"{args.worker}-{i}", queries=queries)
        run_id = store.record(result)
        done["n"] += 1
        print(run_id, flush=True)
    store.close()


if __name__ == "__main__":
    main()
