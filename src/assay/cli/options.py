"""Command-line options shared by several commands, defined once.

Each alias is an ``Annotated`` type a command uses as a parameter annotation, so
the same option has the same name, short flag and help text everywhere.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli.common import SUFFIX_FORMATS, accepted_suffixes
from assay.metrics.registry import usage_list
from assay.report.kinds import formats_of

Judgments = Annotated[
    Path,
    typer.Argument(help="Judgment set: JSONL, CSV, JSON, TREC qrels, a BEIR folder or irds:NAME."),
]
SystemSpec = Annotated[
    str | None,
    typer.Option(
        "--system",
        "-s",
        help="System: a name in assay.toml, a type (keyword, bm25, vector) or module:function.",
    ),
]
Config = Annotated[Path | None, typer.Option("--config", help="An assay.toml declaring systems.")]
Corpus = Annotated[
    Path | None,
    typer.Option(
        "--corpus", help="Corpus for built-in systems (CSV, JSONL, BEIR corpus.jsonl, irds:NAME)."
    ),
]
IdField = Annotated[str | None, typer.Option("--id-field", help="Corpus id field.")]
TextFields = Annotated[
    list[str] | None, typer.Option("--text-field", help="Corpus text field (repeatable).")
]
Depth = Annotated[int, typer.Option("-k", "--depth", help="How many results to ask a system for.")]
Metrics = Annotated[
    list[str] | None,
    typer.Option(
        "--metric",
        "-m",
        help=f"Metric (repeatable): {usage_list()}; parameters as P(rel=2)@5. "
        "Default: R@5 R@10 RR nDCG@10.",
    ),
]
Correction = Annotated[
    str | None,
    typer.Option(
        "--correction",
        help="Multiple-testing correction over the report's family of tests: holm, "
        "bonferroni, hommel, bh (Benjamini-Hochberg), by (Benjamini-Yekutieli) or none. "
        "Default: holm (gate: none; matrix: the file's, else holm).",
    ),
]
By = Annotated[
    list[str] | None,
    typer.Option("--by", help="Group by a metadata field (repeatable); ';'-separated tags split."),
]


def output_option(*choices: str, extra: str = "") -> Any:
    """The ``-o/--output`` option of a command that writes ``choices``.

    Its help lists exactly the suffixes :func:`assay.cli.common.suffix_format`
    accepts for those formats, from the same table, so the two cannot disagree.
    """
    names = ", ".join(
        s + (" (the table as text)" if SUFFIX_FORMATS[s] == "plain" else "")
        for s in accepted_suffixes(choices)
    )
    note = " .json writes the result file itself." if "json" in choices else ""
    return Annotated[
        list[Path] | None,
        typer.Option(
            "--output",
            "-o",
            help=f"Write the result to this file, in the format its suffix names: {names}."
            f"{note} Repeatable: one result, several files, recorded once. With -o, stdout "
            f"stays empty unless -o - is among them (the table).{extra}",
        ),
    ]


Output = Annotated[
    list[Path] | None,
    typer.Option(
        "--output",
        "-o",
        help="Write the result to this file, in the format its suffix names (.json is a "
        "result file for `assay report`, .md, .csv, .html, .txt); repeatable: one result, "
        "several files, recorded once.",
    ),
]
Missing = Annotated[
    str,
    typer.Option(
        "--missing",
        help="Judged queries absent from a run: zero scores them 0 (trec_eval -c), skip "
        "drops them.",
    ),
]
Ties = Annotated[
    str,
    typer.Option(
        "--ties",
        help="Tied scores: score orders them by doc id descending (trec_eval), given keeps "
        "the file order.",
    ),
]
Memory = Annotated[
    int,
    typer.Option(
        "--memory",
        metavar="MB",
        help="Memory budget in MB (64 to 1048576): a TREC run whose whole reading would exceed "
        "it is read and scored in blocks of whole queries, with the same result.",
    ),
]
IgnoreIdenticalIds = Annotated[
    bool,
    typer.Option(
        "--ignore-identical-ids",
        help="Drop a retrieved document whose id is its query's id before scoring, as BEIR "
        "does by default (ArguAna, Quora); off by default, as trec_eval scores it.",
    ),
]
JudgmentsFormat = Annotated[
    str | None,
    typer.Option(
        "--judgments-format",
        help="Judgment format: jsonl, csv, json, trec, trec-diversity (column 2 is the "
        "subtopic), beir, srw, srw-queries or graded-csv (default: detected).",
    ),
]
Split = Annotated[str, typer.Option("--split", help="BEIR split.")]
Store = Annotated[
    str | None,
    typer.Option("--store", help="History store URL (default .assay/history.db or $ASSAY_STORE)."),
]
Record = Annotated[
    bool,
    typer.Option(
        "--record/--no-record",
        help="Record the result in the history store (read by `gate --baseline last`).",
    ),
]
AllowVersionMismatch = Annotated[
    bool,
    typer.Option(
        "--allow-version-mismatch",
        help="Accept runs or results made on another judgment-set version (said in the report).",
    ),
]
Queries = Annotated[
    Path | None,
    typer.Option(
        "--queries", help="Queries for TREC qrels (TSV of id and text, JSONL, or irds:NAME)."
    ),
]
MaxFailed = Annotated[
    int,
    typer.Option(
        "--max-failed",
        help="Failed queries a run may have before the command exits 1 (default 0).",
    ),
]
Retries = Annotated[
    int | None,
    typer.Option(
        "--retries",
        help="Retries of a failed system call, with backoff (default: the system's, else 2).",
    ),
]
MaxConsecutiveFailures = Annotated[
    int,
    typer.Option(
        "--max-consecutive-failures",
        help="Stop the run after this many failed queries in a row (0: never).",
    ),
]
NoCache = Annotated[
    bool,
    typer.Option("--no-cache", help="Always call the system; do not reuse or store a cached run."),
]
CacheDir = Annotated[
    Path | None,
    typer.Option("--cache-dir", help="Run cache (default: $ASSAY_CACHE_DIR or .assay/cache)."),
]
AbstainBelow = Annotated[
    float | None,
    typer.Option(
        "--abstain-below",
        help="Top score below which a system counts as returning nothing confident.",
    ),
]
Name = Annotated[
    str | None,
    typer.Option(
        "--name",
        help="Display name of the run in reports and the history store (default: the "
        "run file's tag or the system's name).",
    ),
]
MixSynthetic = Annotated[
    bool,
    typer.Option(
        "--mix-synthetic",
        help="Score a set that mixes synthetic (model-written) and people's queries, "
        "reported apart.",
    ),
]


def _choose_executor(value: str | None) -> str | None:
    """Set the executor of this command as click parses ``--executor`` (``None``: the
    default, ``$ASSAY_EXECUTOR`` else local); see :mod:`assay.executors`."""
    from assay.executors import set_executor

    set_executor(value)
    return value


Executor = Annotated[
    str | None,
    typer.Option(
        "--executor",
        help="Where system calls, model calls and shards run: local (default) or ray "
        "(the cluster at RAY_ADDRESS, else a local Ray); default $ASSAY_EXECUTOR.",
        callback=_choose_executor,
    ),
]


def _choose_quiet(value: bool) -> bool:
    """Turn progress output off (``--quiet``) or on as click parses the flag."""
    from assay.core.progress import set_quiet

    set_quiet(value)
    return value


Quiet = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="No progress bars or progress lines on stderr.",
        callback=_choose_quiet,
    ),
]


RunFormat = Annotated[
    str | None,
    typer.Option(
        "--format",
        "-f",
        help="Run format: trec or jsonl (default: from the -o suffix, else trec).",
    ),
]


def data_format_option(*choices: str) -> Any:
    """The ``-f/--format`` of a command whose ``-o`` is a data file of ``choices`` (checked)."""
    return Annotated[
        str,
        typer.Option("--format", "-f", help=f"File format: {', '.join(choices)}."),
    ]


def format_option(*choices: str) -> Any:
    """The ``-f/--format`` option of a command that writes ``choices``."""
    return Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            help=f"Output format: {', '.join(choices)} (default: from the -o suffix, else "
            "table; plain is the table as plain text, as printed to a pipe).",
        ),
    ]


def kind_format(kind: str) -> Any:
    """The ``-f/--format`` of a command writing a ``kind`` result: every format
    ``assay report`` renders that kind in (:data:`assay.report.kinds.KINDS`)."""
    return format_option(*formats_of(kind))


def kind_output(kind: str, extra: str = "") -> Any:
    """The ``-o/--output`` of a command writing a ``kind`` result (see :func:`kind_format`)."""
    return output_option(*formats_of(kind), extra=extra)


# --- help in plain words, and the flags every command shares ------------------------------

#: ``-h`` works wherever ``--help`` does (set on the app, inherited by every command).
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}

#: The word shown for an option's value, by option name; else by type (see :func:`_word`).
METAVARS = {
    "--system": "SYSTEM",
    "--metric": "METRIC",
    "--by": "FIELD",
    "--format": "FORMAT",
    "--output": "FILE",
    "--missing": "zero|skip",
    "--ties": "score|given",
    "--judgments-format": "FORMAT",
    "--split": "SPLIT",
    "--store": "URL",
    "--name": "NAME",
    "--id-field": "FIELD",
    "--text-field": "FIELD",
    "--kind": "KIND",
    "--baseline": "BASELINE",
    "--degraded": "SYSTEM",
    "--test": "TEST",
    "--ci": "METHOD",
    "--mode": "MODE",
    "--executor": "local|ray",
}
_TYPE_WORDS = {"path": "PATH", "int": "INTEGER", "float": "NUMBER", "str": "TEXT"}


def _word(param: Any, ctx: Any) -> str:
    for opt in getattr(param, "opts", []):
        if opt in METAVARS:
            return METAVARS[opt]
    label = str(param.display_type(ctx)).strip("<>")
    while label.startswith("list[") and label.endswith("]"):
        label = label[5:-1]
    return _TYPE_WORDS.get(label.lower(), label.upper())


_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def plain_words(text: str | None) -> str | None:
    """Help text without reST markup: ``:mod:`x``` and double-backquoted literals as plain x."""
    if not text:
        return text
    return _LITERAL.sub(r"\1", _ROLE.sub(r"\1", text))


def plain_help(command: Any) -> None:
    """Usage lines and option values in plain words on ``command`` and its subcommands:
    ``JUDGMENTS [RUN]`` rather than ``{judgments} [run]``, ``-m METRIC`` rather than
    ``<list[str]>``."""
    import types

    for sub in getattr(command, "commands", {}).values():
        plain_help(sub)
    command.help = plain_words(command.help)
    for param in getattr(command, "params", []):
        if getattr(param, "help", None):
            param.help = plain_words(param.help)
        if getattr(param, "param_type_name", "") == "argument":
            name = (param.name or "arg").upper()
            param.metavar = name
            many = "..." if param.nargs != 1 else ""
            piece = f"{name}{many}" if param.required else f"[{name}]{many}"
            param.get_usage_pieces = types.MethodType(lambda self, ctx, p=piece: [p], param)
            param.display_type_rich = types.MethodType(lambda self, ctx: None, param)
        elif getattr(param, "param_type_name", "") == "option" and not param.is_flag:
            word = types.MethodType(lambda self, ctx: _word(self, ctx), param)
            param.display_type_rich = word
