"""A judging server in a subprocess on a free loopback port (not a test module)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CHROMIUM = "/usr/bin/chromium"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``assay judge serve`` as a child process; :meth:`kill` sends SIGKILL."""

    def __init__(self, args: list[str], cwd: Path, port: int) -> None:
        self.args, self.cwd, self.port = args, cwd, port
        self.proc: subprocess.Popen | None = None
        self.links: dict[str, str] = {}

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> Server:
        cmd = [sys.executable, "-c", "from assay.cli import main; main()", "judge", "serve"]
        cmd += [*self.args, "--port", str(self.port)]
        log = open(self.cwd / f"server-{time.monotonic_ns()}.log", "w+")  # noqa: SIM115
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(cmd, cwd=self.cwd, stdout=log, stderr=log, env=env)
        self.log = log
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"server exited {self.proc.returncode}:\n{log.read()}")
            try:
                with urllib.request.urlopen(self.base + "/static/judge.js", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.2)
        else:
            self.kill()
            raise RuntimeError("server did not start in time")
        log.seek(0)
        self.links = dict(re.findall(r"login (\w+): (\S+)", log.read()))
        return self

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.proc = None
