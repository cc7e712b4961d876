"""``assay serve`` as a library procedure: a system behind ``/search`` and ``/health``.

:func:`serve_system` builds the system :class:`~assay.procedures.options.SourceOptions`
names and returns a :class:`SystemServer` (an app, not a result model: the
command is listed in :data:`assay.procedures.registry.NO_RESULT`) whose
:meth:`~assay.web.listen.Listener.run` serves it until Ctrl-C.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.core.errors import UsageError
from assay.procedures.live import live_system
from assay.procedures.options import SourceOptions
from assay.systems.base import config_hash
from assay.systems.server import DEFAULT_MAX_QUEUE, DEFAULT_WORKERS, create_app
from assay.web.listen import Listener, check_port


class ServeOptions(BaseModel):
    """Where and how a system is served."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = Field("127.0.0.1", description="interface to listen on (loopback by default)")
    port: int = Field(8000, description="TCP port to listen on (1 to 65535)")
    log_level: str = Field("warning", description="uvicorn log level: warning, info, debug")

    def model_post_init(self, context: Any, /) -> None:
        """Check the port (a UsageError naming ``port``)."""

        check_port(self.port)


@dataclass
class SystemServer(Listener):
    """A system's app ready to listen, with the name and config hash it serves."""

    system_name: str = ""
    config_hash: str = ""


def serve_system(source: SourceOptions, options: ServeOptions | None = None) -> SystemServer:
    """The app serving ``source.system`` (built now), ready to :meth:`~SystemServer.run`.

    Without ``source.config``, ``./assay.toml`` is the config when it exists; a
    ``config`` that is not a file is a :class:`UsageError`. Queries run 8 at a
    time, 64 more may wait, and connections beyond those (and some slack) get 503.
    """

    options = options or ServeOptions()
    if source.system is None:
        raise UsageError("`system` is needed: the system to serve", "system")
    config = source.config
    if config is None and Path("assay.toml").is_file():
        config = Path("assay.toml")
    elif config is not None and not config.is_file():
        raise UsageError(f"`config` {config}: no such file", "config")
    built = live_system(source.system, source.model_copy(update={"config": config}))
    settings = {
        "log_level": options.log_level,
        "lifespan": "off",
        # connections beyond the workers, the bounded queue and some slack get 503
        "limit_concurrency": DEFAULT_WORKERS + DEFAULT_MAX_QUEUE + 16,
    }
    return SystemServer(
        create_app(built), options.host, options.port, settings,
        system_name=built.name, config_hash=config_hash(built.config),
    )  # fmt: skip
