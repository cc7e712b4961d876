"""An app ready to listen on a host and port, run in the foreground by uvicorn.

``assay serve`` and ``assay view`` build a :class:`Listener` in the library
(the port checked by :func:`check_port`, the host told loopback or not by
:func:`is_loopback`) and the command line only says where it listens and calls
:meth:`Listener.run`, which blocks until Ctrl-C.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Any

from assay.core.errors import UsageError

#: Host names a loopback listener answers to (the Host header it accepts).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")


def is_loopback(host: str) -> bool:
    """True when ``host`` is a loopback interface (``localhost``, ``127.0.0.1``, ``::1``...)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_port(port: int) -> int:
    """``port`` when it is a TCP port (1 to 65535); else a UsageError naming ``port``."""

    if not 0 < port < 65536:
        raise UsageError(f"`port` must be between 1 and 65535; got {port}", "port")
    return port


@dataclass
class Listener:
    """An ASGI ``app`` to serve on ``host``:``port`` with uvicorn's ``settings``."""

    app: Any
    host: str
    port: int
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def url(self) -> str:
        """``http://host:port``."""
        return f"http://{self.host}:{self.port}"

    @property
    def loopback(self) -> bool:
        """True when only this machine can reach it."""
        return is_loopback(self.host)

    def run(self) -> None:
        """Serve in the foreground until Ctrl-C (uvicorn)."""
        import uvicorn

        uvicorn.run(self.app, host=self.host, port=self.port, **self.settings)
