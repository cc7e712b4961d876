"""How a procedure calls models, defined once: :class:`ModelCallOptions`.

``judge llm``, ``judge claims``, ``judge answers``, ``generate queries`` and
``matrix`` (and their library procedures in :mod:`assay.procedures.judging`,
:mod:`assay.procedures.generation`, :mod:`assay.procedures.matrix_run`) take the
same options: which model of ``assay.toml``, the model-call cache, offline
replay, the budget and how many failed calls a result may hold before it fails
(:meth:`~assay.results.models.ResultModel.failed_runs`). The command line's spelling
of them is :mod:`assay.cli.model_options`.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.core.errors import UsageError
from assay.core.failures import check_max_failed
from assay.executors import options_from, use
from assay.providers.accounting import check_max_cost
from assay.providers.client import open_client

#: A progress display of a procedure's model calls: called with the number of calls
#: to make, it gives a context whose value is called after each call (or ``None``).
ProgressFactory = Callable[[int], AbstractContextManager[Callable[..., None] | None]]


class ModelCallOptions(BaseModel):
    """Which model a procedure asks, through which cache, within which budget."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = Field(
        None, description="a [models.NAME] of assay.toml (None: the procedure's own models)"
    )
    config: Path | None = Field(
        None, description="the assay.toml declaring the model (None: ./assay.toml)"
    )
    cache_dir: Path | None = Field(
        None, description="the model-call cache folder (None: $ASSAY_CACHE_DIR or .assay/cache)"
    )
    no_cache: bool = Field(False, description="neither read nor write the model-call cache")
    offline: bool = Field(False, description="make no call: replay the cache, fail on a miss")
    max_cost: float | None = Field(
        None, description="stop before spending more than this many USD (None: no budget)"
    )
    max_failed: int = Field(
        0, description="model calls that may fail (after retries) before the result fails"
    )
    executor: str | None = Field(
        None,
        description="where model calls run: 'local' or 'ray' (None: $ASSAY_EXECUTOR, else local)",
    )

    def model_post_init(self, context: Any, /) -> None:
        """Check the budget and the failure bound (a UsageError naming the parameter)."""

        try:
            check_max_cost(self.max_cost)
            check_max_failed(self.max_failed)
            if self.executor is not None:
                options_from(self.executor)
        except UsageError as exc:  # as it is, not wrapped in pydantic's ValidationError
            raise UsageError(str(exc), exc.parameter) from None

    def executor_in_force(self) -> AbstractContextManager[Any]:
        """A context running its body on :attr:`executor` (``None``: the one in force)."""
        import contextlib

        if self.executor is None:
            return contextlib.nullcontext()

        return use(self.executor)

    def open_client(self) -> Any:
        """The :class:`~assay.providers.client.ChatClient` of :attr:`model` with these options."""

        if self.model is None:
            raise UsageError("give the `model` to ask", "model")
        return open_client(
            self.model,
            config_path=self.config,
            cache_dir=self.cache_dir,
            offline=self.offline,
            no_cache=self.no_cache,
        )
