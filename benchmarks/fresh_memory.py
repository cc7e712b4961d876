"""What touching fresh memory costs on this machine, next to reusing memory.

Each round starts a new Python process that (1) allocates 1 GB with numpy and
writes it (every page is fresh to the process), (2) writes the same 1 GB
again (pages already there), (3) frees it and allocates and writes 1 GB again
(pages the kernel just got back). On a physical machine (1) costs a few times
(2); on a virtual machine whose host takes freed pages back (virtio-balloon
free page reporting) it can cost ten times more and vary from one moment to
the next. docs/speed.md uses these figures to explain why a program's speed
there follows the fresh memory it touches.

    .venv/bin/python benchmarks/fresh_memory.py [--rounds 4] [--pause 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

ROUND = """
import time
import numpy as np
t0 = time.perf_counter(); a = np.ones(125_000_000); t1 = time.perf_counter()
a[:] = 2.0; t2 = time.perf_counter(); del a
b = np.ones(125_000_000); t3 = time.perf_counter()
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {t3 - t2:.3f}")
"""


def main() -> None:
    """Print one line per round: seconds for fresh, rewritten and re-allocated 1 GB."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--pause", type=float, default=3.0, help="seconds between rounds")
    args = parser.parse_args()
    print("1 GB, seconds: fresh | written again | freed and allocated again")
    for _ in range(args.rounds):
        out = subprocess.run([sys.executable, "-c", ROUND], capture_output=True, text=True)
        fresh, again, realloc = out.stdout.split()
        print(f"  {fresh:>6} | {again:>6} | {realloc:>6}")
        time.sleep(args.pause)


if __name__ == "__main__":
    main()
