"""GitHub Actions: a gate's report in the job summary, and one annotation per failing check.

When ``GITHUB_ACTIONS`` is ``true`` (GitHub sets it in every job), the results
of ``assay gate``, ``assay verify-suite`` and ``assay matrix --gate-against``
append their Markdown report to the file ``$GITHUB_STEP_SUMMARY`` names (the
job's summary page) and print one workflow command per failing check:
``::error title=...::...`` for a regression, ``::warning title=...::...`` for a
warning, so that each shows as an annotation on the run.

Workflow commands are escaped as GitHub documents them (``%``, CR and LF in
the message; also ``:`` and ``,`` in a property such as ``title``). Text from
user data (names, metadata values, messages) has other control characters
replaced by a space, so that nothing in a judgment file can end a command or
start another, and every registered secret is scrubbed (:mod:`assay.core.redact`).
The human report printed on stdout (the table) shows user data as it is, so
while it is printed workflow commands are switched off (GitHub's
``::stop-commands::TOKEN``, with a random token, then ``::TOKEN::``): a judgment
file cannot smuggle a command into the log through a table cell either. This
module only reads results; :func:`assay.cli.common.finish` wraps every command's
report in :func:`reporting`.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from assay.core.redact import scrub_secrets
from assay.io.fileio import append_text
from assay.report.gate_markdown import render_verify_markdown

#: The result kinds whose report goes to the job summary (a matrix only with a gate).
KINDS = ("gate", "verify", "matrix")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def in_github_actions(environ: Any = None) -> bool:
    """True inside a GitHub Actions job (``GITHUB_ACTIONS=true``)."""
    return (environ if environ is not None else os.environ).get("GITHUB_ACTIONS") == "true"


def clean(text: object) -> str:
    """``text`` without secrets and without control characters other than CR, LF and tab."""

    return _CONTROL.sub(" ", scrub_secrets(str(text)))


def escape_data(text: object) -> str:
    """A workflow command's message: ``%``, CR and LF escaped (GitHub's rule)."""
    return clean(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: object) -> str:
    """A workflow command's property value: the message's escapes, and ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, title: str, message: str) -> str:
    """One workflow command line: ``::error title=...::message`` (``level``: error, warning)."""
    return f"::{level} title={escape_property(title)}::{escape_data(message)}"


def applies(result: Any) -> bool:
    """True for a gate, a suite verification, or a matrix run with ``--gate-against``."""
    kind = getattr(result, "kind", None)
    return kind in KINDS and (kind != "matrix" or getattr(result, "gate", None) is not None)


def annotations(result: Any) -> list[str]:
    """The workflow commands of ``result``: one per failing check, one per warning."""
    kind = result.kind
    if kind == "gate":
        lines = [
            command("error", f"assay gate: {c.metric} regressed ({c.label})", c.message)
            for c in result.failures
        ]
        if result.failed_check:
            lines.append(command("error", "assay gate: failed queries", result.failed_check))
        return lines + [command("warning", "assay gate", w) for w in result.warnings]
    if kind == "verify":
        return [
            command("error", f"assay verify-suite: {c.metric} cannot tell", c.message)
            for c in result.checks
            if not c.passed
        ]
    return [
        command("error", f"assay matrix gate: {c.variant} regressed", _matrix_words(c))
        for c in result.gate.checks
        if not c.passed
    ]


def _matrix_words(check: Any) -> str:
    return (
        f"{check.variant}: pass rate {check.baseline_pass_rate:.3f} -> "
        f"{check.candidate_pass_rate:.3f} (delta {check.delta:+.3f}, "
        f"CI {check.ci_low:+.3f} to {check.ci_high:+.3f})"
    )


def summary(result: Any) -> str:
    """The Markdown the job summary gets for ``result``."""
    if result.kind == "gate":
        from assay.report.gate_markdown import render_markdown

        return render_markdown(result)
    if result.kind == "verify":
        return render_verify_markdown(result)
    from assay.report.matrix_markdown import render_gate_markdown, render_markdown

    return render_markdown(result) + "\n" + render_gate_markdown(result)


def publish(result: Any, stream: TextIO | None = None, environ: Any = None) -> bool:
    """In GitHub Actions, append ``result``'s report to the step summary and print its
    annotations to ``stream`` (stdout by default); True when it did.

    Does nothing outside GitHub Actions or for a result kind it does not cover. A
    step summary that cannot be written only warns: the verdict is the exit code.
    """
    env = environ if environ is not None else os.environ
    if not in_github_actions(env) or not applies(result):
        return False
    path = env.get("GITHUB_STEP_SUMMARY")
    if path:
        try:
            append_text(path, clean(summary(result)).rstrip("\n") + "\n\n")
        except OSError as exc:
            sys.stderr.write(f"warning: {path}: the step summary was not written ({exc})\n")
    out = stream or sys.stdout
    for line in annotations(result):
        out.write(line + "\n")
    out.flush()
    return True


@contextmanager
def reporting(result: Any, stream: TextIO | None = None, *, guard: bool = True) -> Iterator[None]:
    """Around the printing of ``result``'s report: in GitHub Actions, commands are off while
    it prints (``guard``: the report goes to ``stream``, stdout by default), then the
    summary and the annotations are written (:func:`publish`). Elsewhere it does nothing.
    """
    if not in_github_actions() or not applies(result):
        yield
        return
    import secrets

    out = stream or sys.stdout
    token = secrets.token_hex(16)
    if guard:
        out.write(f"::stop-commands::{token}\n")
        out.flush()
    try:
        yield
    finally:
        if guard:
            out.flush()
            out.write(f"::{token}::\n")
    publish(result, out)
