# ruff: noqa: E501
"""The hostile corpus: inputs built to break readers, each a (files, argv, expected) case.

Files are generated in a tmp dir by the test (nothing large is committed).
``{d}`` in argv is the case's folder. Every case must exit 2 with a message
naming the file (and line, when the fault is on one) or the option at fault.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field

DEEP = 3000
HUGE_INT = "9" * 5000
BIG_FLOAT = "1" * 400 + ".5"


@dataclass(frozen=True)
class Case:
    """One hostile input: files to write, the command, a regex the message must match."""

    id: str
    files: dict[str, bytes]
    argv: list[str]
    expect: str
    code: int = 2
    env: dict[str, str] = field(default_factory=dict)


def _jl(*records: object) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def _deep(inner: str = "1") -> str:
    return "[" * DEEP + inner + "]" * DEEP


QRELS = _jl(
    {"query_id": "q1", "query": "alpha beta", "relevant": {"d1": 1}},
    {"query_id": "q2", "query": "gamma delta", "relevant": {"d2": 2}},
    {"query_id": "q3", "query": "epsilon", "relevant": {"d3": 1}},
)
RUN = b"q1 Q0 d1 1 2.0 t\nq2 Q0 d2 1 1.5 t\nq3 Q0 d9 1 1.0 t\n"
CORPUS = _jl(
    {"_id": "d1", "title": "alpha", "text": "alpha beta words"},
    {"_id": "d2", "title": "gamma", "text": "gamma delta words"},
    {"_id": "d3", "title": "eps", "text": "epsilon zeta"},
)
CASE_OK = {
    "case_id": "c01",
    "question": "how many",
    "expected_status": "answered",
    "retrieved_ids": ["D1"],
    "response": {"status": "answered", "answer": "7.6%", "claims": []},
}


def _with_qrels_line(line: str) -> bytes:
    return QRELS + line.encode() + b"\n"


def _eval(run: str = "run.trec", qrels: str = "q.jsonl", *extra: str) -> list[str]:
    return ["evaluate", "{d}/" + qrels, "{d}/" + run, "--no-record", *extra]


def judgment_cases() -> list[Case]:
    """JSONL, CSV, JSON list, TREC qrels and BEIR judgments."""
    out: list[Case] = []
    bad_lines = {
        "deep-relevant": '{"query_id": "q4", "query": "x", "relevant": ' + _deep() + "}",
        "deep-meta": '{"query_id": "q4", "query": "x", "relevant": {"d": 1}, "m": ' + _deep() + "}",
        "huge-int-grade": '{"query_id": "q4", "query": "x", "relevant": {"d": ' + HUGE_INT + "}}",
        "grade-2^70": '{"query_id": "q4", "query": "x", "relevant": {"d": ' + str(2**70) + "}}",
        "grade-2^63": '{"query_id": "q4", "query": "x", "relevant": {"d": ' + str(2**63) + "}}",
        "grade-neg-2^63": '{"query_id": "q4", "query": "x", "relevant": {"d": -'
        + str(2**63 + 1)
        + "}}",
        "grade-400-digits": '{"query_id": "q4", "query": "x", "relevant": {"d": '
        + BIG_FLOAT
        + "}}",
        "grade-nan": '{"query_id": "q4", "query": "x", "relevant": {"d": NaN}}',
        "grade-inf": '{"query_id": "q4", "query": "x", "relevant": {"d": Infinity}}',
        "grade-string": '{"query_id": "q4", "query": "x", "relevant": {"d": "high"}}',
        "grade-float": '{"query_id": "q4", "query": "x", "relevant": {"d": 1.5}}',
        "grade-bool": '{"query_id": "q4", "query": "x", "relevant": {"d": true}}',
        "relevant-list": '{"query_id": "q4", "query": "x", "relevant": [1, 2]}',
        "query-id-int-huge": '{"query_id": ' + HUGE_INT + ', "query": "x", "relevant": {"d": 1}}',
        "query-id-object": '{"query_id": {"a": 1}, "query": "x", "relevant": {"d": 1}}',
        "query-id-empty": '{"query_id": "", "query": "x", "relevant": {"d": 1}}',
        "doc-id-empty": '{"query_id": "q4", "query": "x", "relevant": {"": 1}}',
        "surrogate": '{"query_id": "q4", "query": "bad \\ud800 text", "relevant": {"d": 1}}',
        "surrogate-id": '{"query_id": "q\\udc00", "query": "x", "relevant": {"d": 1}}',
        "not-object": "[1, 2, 3]",
        "truncated": '{"query_id": "q4", "query": "x", "rel',
        "duplicate-id": '{"query_id": "q1", "query": "x", "relevant": {"d": 1}}',
        "query-number": '{"query_id": "q4", "query": 12, "relevant": {"d": 1}}',
        "null-byte": '{"query_id": "q4\\u0000", "query": "x", "relevant": {"d": 1}}',
    }
    accepted = {"null-byte"}  # a NUL inside a JSON string is a character like any other
    for name, line in bad_lines.items():
        out.append(Case(f"qrels-jsonl-{name}", {"q.jsonl": _with_qrels_line(line), "run.trec": RUN},
                        _eval(), r"q\.jsonl", code=0 if name in accepted else 2))  # fmt: skip
    out.append(Case("qrels-invalid-utf8", {"q.jsonl": QRELS + b'{"query_id": "q\xff"}\n',
                    "run.trec": RUN}, _eval(), r"q\.jsonl:4"))  # fmt: skip
    out.append(Case("qrels-encoded-surrogate", {"q.jsonl": QRELS + b'{"query_id": "q\xed\xa0\x80"}\n',
                    "run.trec": RUN}, _eval(), r"q\.jsonl:4"))  # fmt: skip
    out.append(Case("qrels-binary", {"q.jsonl": bytes(range(256)) * 40, "run.trec": RUN},
                    _eval(), r"q\.jsonl"))  # fmt: skip
    out.append(Case("qrels-empty", {"q.jsonl": b"", "run.trec": RUN}, _eval(), r"q\.jsonl"))
    out.append(Case("qrels-bom-only", {"q.jsonl": b"\xef\xbb\xbf", "run.trec": RUN},
                    _eval(), r"q\.jsonl"))  # fmt: skip
    gz = gzip.compress(QRELS * 50)
    out.append(Case("qrels-truncated-gzip", {"q.jsonl.gz": gz[: len(gz) // 2], "run.trec": RUN},
                    _eval("run.trec", "q.jsonl.gz"), r"q\.jsonl\.gz.*gzip"))  # fmt: skip
    out.append(Case("qrels-gzip-garbage", {"q.jsonl.gz": b"\x1f\x8b" + b"\x00" * 50,
                    "run.trec": RUN}, _eval("run.trec", "q.jsonl.gz"), r"q\.jsonl\.gz"))  # fmt: skip
    # JSON list (eval dataset)
    for name, body in {
        "deep": '[{"query_id": "q1", "query": "x", "relevant": ' + _deep() + "}]",
        "top-deep": _deep(),
        "huge-int": '[{"query_id": "q1", "query": "x", "relevant": {"d": ' + HUGE_INT + "}}]",
        "grade-2^70": '[{"query_id": "q1", "query": "x", "relevant": {"d": ' + str(2**70) + "}}]",
        "not-list": '{"a": 1}',
        "list-of-numbers": "[1, 2, 3]",
        "truncated": '[{"query_id": "q1", ',
        "400-digit": '[{"query_id": "q1", "query": "x", "relevant": {"d": ' + BIG_FLOAT + "}}]",
    }.items():
        out.append(Case(f"json-list-{name}", {"e.json": body.encode(), "run.trec": RUN},
                        _eval("run.trec", "e.json"), r"e\.json"))  # fmt: skip
    # CSV judgments
    head = b"query_id,query,relevant_ids\n"
    for name, body in {
        "field-200kb": head + b'q1,"' + b"x" * 200_000 + b'",d1\n',
        "line-10mb": head + b"q1," + b"y" * 10_000_000 + b",d1\n",
        "unclosed-quote": head + b'q1,"open,d1\nq2,b,d2\n',
        "invalid-utf8": head + b"q1,caf\xe9,d1\n",
        "surrogate-bytes": head + b"q1,x\xed\xa0\x80,d1\n",
        "only-header": head,
        "no-header-cols": b"a,b\n1,2\n",
        "nul-bytes": head + b"q1,a\x00b,d1\n",
    }.items():
        out.append(Case(f"csv-{name}", {"q.csv": body, "run.trec": RUN}, _eval("run.trec", "q.csv"),
                        r"q\.csv"))  # fmt: skip
    ki = b"question_id,language,question,expected_id,note\n"
    ki_run = b"k1 Q0 d1 1 2.0 t\nk2 Q0 d2 1 1.0 t\n"
    out.append(Case("known-item-field-200kb-ok", {"k.csv": ki + b'k1,en,"' + b"w" * 200_000
                    + b'",d1,\nk2,en,short,d2,\n', "run.trec": ki_run},
                    _eval("run.trec", "k.csv"), "", code=0))  # fmt: skip
    out.append(Case("known-item-unclosed-200kb", {"k.csv": ki + b'k1,en,"' + b"w" * 200_000
                    + b",d1,\n", "run.trec": ki_run}, _eval("run.trec", "k.csv"), r"k\.csv"))  # fmt: skip
    # TREC qrels
    for name, body in {
        "grade-2^70": b"q1 0 d1 " + str(2**70).encode() + b"\n",
        "grade-2^63": b"q1 0 d1 " + str(2**63).encode() + b"\n",
        "grade-huge": b"q1 0 d1 " + HUGE_INT.encode() + b"\n",
        "grade-400-digit-float": b"q1 0 d1 " + BIG_FLOAT.encode() + b"\n",
        "three-fields": b"q1 0 d1\n",
        "line-10mb": b"q1 0 d1 1\nq2 0 " + b"d" * 10_000_000 + b" x\n",
        "grade-nan": b"q1 0 d1 nan\n",
        "invalid-utf8": b"q\xff 0 d1 1\n",
    }.items():
        out.append(Case(f"trec-qrels-{name}", {"q.qrels": body, "run.trec": RUN},
                        _eval("run.trec", "q.qrels", "--judgments-format", "trec"),
                        r"q\.qrels"))  # fmt: skip
    # BEIR folder with a hostile split
    beir = {
        "b/corpus.jsonl": CORPUS,
        "b/queries.jsonl": _jl({"_id": "q1", "text": "alpha"}),
        "b/qrels/test.tsv": b"query-id\tcorpus-id\tscore\nq1\td1\t1\n",
        "run.trec": RUN,
        "x.tsv": b"query-id\tcorpus-id\tscore\nq1\td1\t1\n",
    }  # fmt: skip  (outside the folder)
    for split in ("../../x", "/etc/passwd", "..", "a/b", "nosuch"):
        out.append(Case(f"beir-split-{split}", beir,
                        ["evaluate", "{d}/b", "{d}/run.trec", "--no-record", "--split", split],
                        r"split|--split"))  # fmt: skip
    out.append(Case("beir-qrels-grade-2^70", {**beir, "b/qrels/test.tsv":
                    b"query-id\tcorpus-id\tscore\nq1\td1\t" + str(2**70).encode() + b"\n"},
                    ["evaluate", "{d}/b", "{d}/run.trec", "--no-record"], r"test\.tsv"))  # fmt: skip
    out.append(Case("beir-queries-deep", {**beir, "b/queries.jsonl":
                    ('{"_id": "q1", "text": ' + _deep('"a"') + "}\n").encode()},
                    ["evaluate", "{d}/b", "{d}/run.trec", "--no-record"], r"queries\.jsonl"))  # fmt: skip
    return out


def run_cases() -> list[Case]:
    """TREC and JSONL runs, and their sidecars."""
    out: list[Case] = []
    for name, body in {
        "score-400-digits": b"q1 Q0 d1 1 " + ("9" * 400).encode() + b" t\n",
        "score-400-digit-float": b"q1 Q0 d1 1 " + BIG_FLOAT.encode() + b" t\n",
        "score-nan": b"q1 Q0 d1 1 nan t\n",
        "score-inf": b"q1 Q0 d1 1 inf t\n",
        "score-text": b"q1 Q0 d1 1 high t\n",
        "five-fields": b"q1 Q0 d1 1 2.0\n",
        "line-10mb": b"q1 Q0 " + b"d" * 10_000_000 + b" 1 2.0 t\n",
        "rank-text": b"q1 Q0 d1 first 2.0 t\n" * 0 + b"q1 Q0 d1 1 2.0 t\nq1 Q0 d2 1 nan t\n",
        "duplicate-doc": b"q1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n",
        "invalid-utf8": b"q1 Q0 d\xff 1 2.0 t\n",
        "binary": bytes(range(256)) * 100,
        "empty": b"",
        "tabs-and-junk": b"q1\tQ0\td1\t1\t2.0\tt\nq2 Q0\n",
    }.items():
        out.append(Case(f"trec-run-{name}", {"q.jsonl": QRELS, "r.trec": body},
                        _eval(run="r.trec"), r"r\.trec"))  # fmt: skip
    gz = gzip.compress(RUN * 200)
    out.append(Case("trec-run-truncated-gzip", {"q.jsonl": QRELS, "r.trec.gz": gz[:40]},
                    _eval(run="r.trec.gz"), r"r\.trec\.gz"))  # fmt: skip
    for name, line in {
        "deep": '{"query_id": "q1", "results": ' + _deep('"d1"') + "}",
        "huge-int-score": '{"query_id": "q1", "results": [{"doc_id": "d1", "score": '
        + HUGE_INT
        + "}]}",
        "400-digit-score": '{"query_id": "q1", "results": [{"doc_id": "d1", "score": '
        + BIG_FLOAT
        + "}]}",
        "nan-score": '{"query_id": "q1", "results": [{"doc_id": "d1", "score": NaN}]}',
        "results-object": '{"query_id": "q1", "results": {"a": 1}}',
        "doc-id-deep": '{"query_id": "q1", "results": [' + _deep('"x"') + "]}",
        "surrogate": '{"query_id": "q\\ud800", "results": ["d1"]}',
        "not-object": "[1]",
        "truncated": '{"query_id": "q1", "resu',
    }.items():
        out.append(Case(f"jsonl-run-{name}", {"q.jsonl": QRELS, "r.jsonl": (line + "\n").encode()},
                        _eval(run="r.jsonl"), r"r\.jsonl"))  # fmt: skip
    for name, body in {
        "deep": _deep(),
        "deep-object": '{"failures": ' + _deep() + "}",
        "huge-int": '{"k": ' + HUGE_INT + "}",
        "not-object": "[1, 2]",
        "garbage": "\x00\x01garbage",
        "failures-not-list": '{"failures": 3}',
        "bare-nan": '{"latency_ms": {"p50": NaN}, "failures": [{"query_id": ' + _deep() + "}]}",
        "failure-ids-objects": '{"failures": [{"query_id": {"a": 1}}]}',
    }.items():
        out.append(Case(f"sidecar-{name}", {"q.jsonl": QRELS, "run.trec": RUN,
                        "run.trec.json": body.encode()}, _eval(), r"run\.trec\.json"))  # fmt: skip
    return out


def _result_json(aggregate: str) -> bytes:
    return (
        '{"kind": "evaluation", "schema_version": "1", "aggregate": ' + aggregate + "}"
    ).encode()


def result_cases() -> list[Case]:
    """Result files read by compare, gate --baseline and report."""
    out: list[Case] = []
    bodies = {
        "deep": _result_json(_deep()),
        "huge-int": _result_json('{"RR": ' + HUGE_INT + "}"),
        "400-digit": _result_json('{"RR": ' + BIG_FLOAT + "}"),
        "truncated": b'{"kind": "evaluation", "schema_vers',
        "wrong-types": _result_json("[1, 2]"),
        "binary": b'{"kind": "evaluation"' + bytes(range(256)),
    }
    for name, body in bodies.items():
        files = {"q.jsonl": QRELS, "run.trec": RUN, "res.json": body}
        out.append(Case(f"compare-result-{name}", files,
                        ["compare", "{d}/q.jsonl", "{d}/res.json", "{d}/run.trec", "--no-record"],
                        r"res\.json"))  # fmt: skip
        out.append(Case(f"gate-baseline-{name}", files,
                        ["gate", "{d}/q.jsonl", "{d}/run.trec", "--baseline", "{d}/res.json",
                         "--no-record"], r"res\.json"))  # fmt: skip
        out.append(Case(f"report-{name}", files, ["report", "{d}/res.json"], r"res\.json"))
    return out


def _corpus(*texts: str) -> bytes:
    return _jl(*({"_id": f"d{i + 1}", "text": t} for i, t in enumerate(texts)))


def corpus_cases() -> list[Case]:
    """Corpora and BM25 parameters for --system bm25."""
    out: list[Case] = []

    def bm25(corpus: str = "c.jsonl", *extra: str) -> list[str]:
        return ["evaluate", "{d}/q.jsonl", "--system", "bm25", "--corpus", "{d}/" + corpus,
                "--no-record", *extra]  # fmt: skip

    for name, body in {
        "deep": ('{"_id": "d1", "text": ' + _deep('"a"') + "}\n").encode(),
        "huge-int-id": ('{"_id": ' + HUGE_INT + ', "text": "a"}\n').encode(),
        "all-empty": _corpus("", "  ", ""),
        "all-stopwords": _corpus("the of and", "a an the", "of"),
        "surrogate": _corpus("a", "b", "c") + b'{"_id": "d4", "text": "x \\ud800"}\n',
        "truncated": b'{"_id": "d1", "te',
        "empty": b"",
        "no-id": _jl({"text": "alpha"}),
    }.items():
        expect = r"nothing to index" if name.startswith("all-") else r"c\.jsonl"
        out.append(Case(f"corpus-{name}", {"q.jsonl": QRELS, "c.jsonl": body}, bm25(), expect))
    big = b"id,text\nd1," + b"w" * 200_000 + b"\nd2,gamma\nd3,epsilon\n"
    out.append(Case("corpus-csv-field-200kb-ok", {"q.jsonl": QRELS, "c.csv": big},
                    bm25("c.csv"), "", code=0))  # fmt: skip
    gz = gzip.compress(CORPUS * 100)
    out.append(Case("corpus-truncated-gzip", {"q.jsonl": QRELS, "c.jsonl.gz": gz[:60]},
                    bm25("c.jsonl.gz"), r"c\.jsonl\.gz"))  # fmt: skip
    for name, value in {"nan": "nan", "inf": "inf", "negative": "-1.0", "huge": "1e308"}.items():
        toml = f'[systems.b]\ntype = "bm25"\nk1 = {value}\n'.encode()
        out.append(Case(f"bm25-k1-{name}", {"q.jsonl": QRELS, "c.jsonl": CORPUS, "assay.toml": toml},
                        ["evaluate", "{d}/q.jsonl", "--system", "b", "--config", "{d}/assay.toml",
                         "--corpus", "{d}/c.jsonl", "--no-record"], r"k1"))  # fmt: skip
    for name, value in {"b-2": "b = 2.0", "b-nan": "b = nan", "b-text": 'b = "x"'}.items():
        toml = f'[systems.b]\ntype = "bm25"\n{value}\n'.encode()
        out.append(Case(f"bm25-{name}", {"q.jsonl": QRELS, "c.jsonl": CORPUS, "assay.toml": toml},
                        ["evaluate", "{d}/q.jsonl", "--system", "b", "--config", "{d}/assay.toml",
                         "--corpus", "{d}/c.jsonl", "--no-record"], r"\bb\b"))  # fmt: skip
    return out


def config_cases() -> list[Case]:
    """assay.toml itself."""
    out: list[Case] = []
    for name, body in {
        "deep-array": '[systems.x]\ntype = "bm25"\nv = ' + "[" * DEEP + "]" * DEEP + "\n",
        "deep-inline": '[systems.x]\ntype = "http"\nurl = "http://127.0.0.1:9/"\nbody = '
        + "{a = " * DEEP
        + "1"
        + "}" * DEEP
        + "\n",
        "huge-int": '[systems.x]\ntype = "bm25"\nk1 = ' + HUGE_INT + "\n",
        "garbage": "\x00\x01[[[",
        "invalid-utf8": '[systems.x]\ntype = "bm25\xff"\n',
        "systems-not-table": "systems = 3\n",
        "http-timeout-nan": '[systems.x]\ntype = "http"\nurl = "http://127.0.0.1:9/"\ntimeout = nan\n',
        "http-bad-redirect": '[systems.x]\ntype = "http"\nurl = "http://127.0.0.1:9/"\n'
        'cross_origin_redirects = "follow"\n',
        "http-max-bytes-0": '[systems.x]\ntype = "http"\nurl = "http://127.0.0.1:9/"\n'
        "max_response_bytes = 0\n",
    }.items():
        out.append(Case(f"toml-{name}", {"q.jsonl": QRELS, "c.jsonl": CORPUS,
                        "assay.toml": body.encode("utf-8", "surrogateescape")},
                        ["evaluate", "{d}/q.jsonl", "--system", "x", "--config", "{d}/assay.toml",
                         "--corpus", "{d}/c.jsonl", "--no-record"], r"assay\.toml|system 'x'"))  # fmt: skip
    return out


def answer_cases() -> list[Case]:
    """Answer case files."""
    out: list[Case] = []
    deep_case = json.dumps(CASE_OK)[:-1] + ', "extra": ' + _deep() + "}"
    for name, line in {
        "deep": deep_case,
        "huge-int": json.dumps(CASE_OK)[:-1]
        + ', "expected_values": [{"value": '
        + HUGE_INT
        + "}]}",
        "400-digit": json.dumps(CASE_OK)[:-1]
        + ', "expected_values": [{"value": '
        + BIG_FLOAT
        + "}]}",
        "value-nan": json.dumps(CASE_OK)[:-1] + ', "expected_values": [{"value": NaN}]}',
        "truncated": json.dumps(CASE_OK)[:40],
        "surrogate": json.dumps(CASE_OK).replace("how many", "how \\ud800 many"),
        "not-object": "[1, 2]",
        "answer-number": json.dumps({**CASE_OK, "response": {"status": "answered", "answer": 5}}),
    }.items():
        out.append(Case(f"answers-{name}", {"cases.jsonl": (line + "\n").encode()},
                        ["answers", "{d}/cases.jsonl", "--no-record"], r"cases\.jsonl"))  # fmt: skip
    return out


def option_cases() -> list[Case]:
    """Numeric and textual options: NaN, negative, huge, malformed."""
    files = {"q.jsonl": QRELS, "run.trec": RUN}
    out: list[Case] = []
    evaluate = {
        "metric-P@10^21": ["-m", "P@10^21"],
        "metric-P@huge": ["-m", "P@" + "9" * 30],
        "metric-P@0": ["-m", "P@0"],
        "metric-P@-1": ["-m", "P@-1"],
        "metric-empty": ["-m", ""],
        "metric-nDCG@1e400": ["-m", "nDCG@1e400"],
        "metric-unknown": ["-m", "NOPE@10"],
        "metric-surrogate": ["-m", "P@\udc80"],
        "digits-negative": ["--digits", "-3"],
        "digits-huge": ["--digits", "100000"],
        "k-zero": ["-k", "0"],
        "abstain-nan": ["--abstain-below", "nan"],
        "abstain-inf": ["--abstain-below", "inf"],
        "max-failed-negative": ["--max-failed", "-1"],
        "missing-bad": ["--missing", "maybe"],
        "ties-bad": ["--ties", "random"],
        "format-bad": ["-f", "xml"],
        "output-is-dir": ["-o", "{d}"],
        "store-bad-url": ["--record", "--store", "x://::"],
        "store-unknown-scheme": ["--record", "--store", "notadb://", "--no-record"],
        "by-unknown": ["--by", "nosuchfield"],
        "digits-not-int": ["--digits", "abc"],
    }
    warned = {"store-bad-url", "store-unknown-scheme"}  # recording only warns: exit 0
    for name, extra in evaluate.items():
        out.append(Case(f"evaluate-{name}", files, _eval("run.trec", "q.jsonl", *extra), "",
                        code=0 if name in warned else 2))  # fmt: skip
    gate = {
        "margin-nan": ["--margin", "nan"],
        "margin-negative": ["--margin", "-1"],
        "margin-inf": ["--margin", "inf"],
        "alpha-nan": ["--alpha", "nan"],
        "alpha-zero": ["--alpha", "0"],
        "alpha-one": ["--alpha", "1"],
        "resamples-zero": ["--resamples", "0"],
        "resamples-huge": ["--resamples", "9" * 30],
        "min-n-zero": ["--min-n", "0"],
        "seed-negative": ["--seed", "-5"],
        "mode-bad": ["--mode", "strict"],
        "baseline-missing": ["--baseline", "{d}/nosuch.json"],
        "baseline-last-bad-store": ["--baseline", "last", "--store", "x://::"],
        "max-failed-negative": ["--max-failed", "-3"],
    }
    for name, extra in gate.items():
        argv = ["gate", "{d}/q.jsonl", "{d}/run.trec", "--no-record"]
        if "--baseline" not in extra:
            argv += ["--baseline", "{d}/run.trec"]
        out.append(Case(f"gate-{name}", files, argv + extra, ""))
    compare = {
        "permutations-zero": ["--permutations", "0"],
        "permutations-negative": ["--permutations", "-1"],
        "alpha-nan": ["--alpha", "nan"],
        "alpha-2": ["--alpha", "2"],
        "top-negative": ["--top", "-1"],
        "resamples-negative": ["--resamples", "-10"],
        "test-bad": ["--test", "magic"],
        "ci-bad": ["--ci", "xyz"],
        "seed-text": ["--seed", "abc"],
    }
    for name, extra in compare.items():
        argv = ["compare", "{d}/q.jsonl", "{d}/run.trec", "{d}/run.trec", "--no-record", *extra]
        out.append(Case(f"compare-{name}", files, argv, ""))
    run = {
        "concurrency-zero": ["--concurrency", "0"],
        "retries-negative": ["--retries", "-1"],
        "consecutive-negative": ["--max-consecutive-failures", "-2"],
        "k-negative": ["-k", "-4"],
    }
    for name, extra in run.items():
        argv = ["run", "{d}/q.jsonl", "-s", "keyword", "--corpus", "{d}/c.jsonl", "-o",
                "{d}/o.trec", *extra]  # fmt: skip
        out.append(Case(f"run-{name}", {**files, "c.jsonl": CORPUS}, argv, ""))
    return out


def store_cases() -> list[Case]:
    """Corrupt and garbage store files."""
    garbage = bytes(range(256)) * 64
    sqlite_head = b"SQLite format 3\x00" + b"\xff" * 4000
    out: list[Case] = []
    for name, body in {"garbage": garbage, "bad-sqlite": sqlite_head, "text": b"hello\n"}.items():
        files = {"q.jsonl": QRELS, "run.trec": RUN, "h.db": body}
        url = "sqlite:///{d}/h.db"
        out.append(Case(f"history-{name}", files, ["history", "--store", url], r"h\.db|store"))
        out.append(Case(f"gate-last-{name}", files, ["gate", "{d}/q.jsonl", "{d}/run.trec",
                        "--baseline", "last", "--store", url, "--no-record"], r"h\.db|store"))  # fmt: skip
    out.append(Case("history-bad-url", {}, ["history", "--store", "x://::"], r"store"))
    out.append(Case("history-dir-url", {"sub/x": b""}, ["history", "--store", "sqlite:///{d}/sub"],
                    r"store|sub"))  # fmt: skip
    return out


def all_cases() -> list[Case]:
    """Every hostile case."""
    return [
        *judgment_cases(),
        *run_cases(),
        *result_cases(),
        *corpus_cases(),
        *config_cases(),
        *answer_cases(),
        *option_cases(),
        *store_cases(),
    ]
