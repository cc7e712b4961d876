"""``assay view`` as a library procedure: the viewer app, ready to listen.

:func:`open_view` checks the :class:`ViewOptions`, builds the app over result
files and the history store (:func:`assay.view.app.make_app`; an unreadable
file or store is refused now, before anything listens) and returns a
:class:`~assay.web.listen.Listener` (an app, not a result model: the command is
listed in :data:`assay.procedures.registry.NO_RESULT`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.view.app import make_app
from assay.web.listen import LOOPBACK_HOSTS, Listener, check_port, is_loopback


class ViewOptions(BaseModel):
    """What the viewer reads besides result files, and where it listens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    store: str | None = Field(
        None, description="history store (None: the default store without files, else none)"
    )
    corpus: Path | None = Field(
        None, description="corpus giving documents' text where a run's provenance names none"
    )
    id_field: str | None = Field(None, description="the corpus's id field (None: detected)")
    text_fields: tuple[str, ...] | None = Field(
        None, description="the corpus's text fields (None: detected)"
    )
    host: str = Field("127.0.0.1", description="address to listen on")
    port: int = Field(8766, description="port to listen on (1 to 65535)")

    def model_post_init(self, context: Any, /) -> None:
        """Check the port (a UsageError naming ``port``)."""

        check_port(self.port)


def open_view(results: Sequence[str | Path] = (), options: ViewOptions | None = None) -> Listener:
    """The read-only viewer over ``results`` (and the store), ready to :meth:`~Listener.run`.

    On a loopback host it answers only to loopback host names (a DNS-rebinding
    guard); on another host it answers to any.
    """

    options = options or ViewOptions()
    hosts = list(LOOPBACK_HOSTS) if is_loopback(options.host) else None
    web = make_app(
        list(results),
        store=options.store,
        corpus=options.corpus,
        id_field=options.id_field,
        text_fields=options.text_fields,
        allowed_hosts=hosts,
    )
    return Listener(web, options.host, options.port, {"log_level": "warning"})
