"""Library words to command-line words: parameters named in messages become the flags.

The library's messages and result warnings name parameters in backticks
(`allow_version_mismatch`), the same through every door; what a user of the
command line reads names the flag (--allow-version-mismatch).
"""

from __future__ import annotations

import re
from typing import Any

#: Library parameter -> the CLI flag (or argument) that sets it, where not ``--name-with-dashes``.
FLAGS = {
    "metrics": "--metric",
    "k": "-k",
    "n_resamples": "--resamples",
    "n_permutations": "--permutations",
    "ci_method": "--ci",
    "runs": "RUN files",
    "judgments": "JUDGMENTS",
    "system": "--system",
    "allow_version_mismatch=True": "--allow-version-mismatch",
    "trec_eval_depth": "-M",
    "trec_eval_level": "-l",
    # bounds of values that are not flags: keep the name, say where it is written
    "cutoff": "the measure's cutoff (@k)",
    "rel": "the measure's rel=",
    "batch_size": "batch_size",
    "max_tokens": "max_tokens",
}


def flags(message: str) -> str:
    """Library messages name parameters in backticks; on the command line, name the flags."""

    def flag(match: re.Match[str]) -> str:
        name = match.group(1)
        return FLAGS.get(name) or "--" + name.replace("_", "-")

    return re.sub(r"`([a-z_]+(?:=True)?)`", flag, message)


def flag_warnings(result: Any) -> Any:
    """A copy of ``result`` whose warnings name flags, for the table the CLI prints.

    The library's warnings name parameters (`allow_version_mismatch`), and so do
    result files (the same through every door); the table a user of the command
    line reads names the flag (--allow-version-mismatch), through :func:`flags`.
    """
    from pydantic import BaseModel

    if isinstance(result, BaseModel):
        copy = result.model_copy(deep=True)
        _flag_in_place(copy)
        return copy
    return result


def _flag_in_place(result: Any) -> None:
    from pydantic import BaseModel

    if isinstance(result, BaseModel):
        for name in type(result).model_fields:
            value = getattr(result, name, None)
            if name == "warnings" and isinstance(value, list):
                value[:] = [flags(w) if isinstance(w, str) else w for w in value]
            else:
                _flag_in_place(value)
    elif isinstance(result, list | tuple):
        for item in result:
            _flag_in_place(item)
    elif isinstance(result, dict):
        for item in result.values():
            _flag_in_place(item)
