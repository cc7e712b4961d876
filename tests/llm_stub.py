"""A local OpenAI-compatible chat server for tests: answers by rules, misbehaves on demand.

``POST /v1/chat/completions`` reads the last user message. Relevance prompts
(``Query:`` and ``Passage:`` lines) get a grade: how many query words of four
letters or more the passage holds, capped at 3. Claim prompts (``Claim:`` and
``Source:``) are ``supported`` when every long claim word is in the source.
Answer-rubric prompts (``Answer:``) pass every check unless the answer says
``WRONG``. Words in the passage, source or answer make it misbehave:

* ``MALFORMED``: content that is not JSON; ``WRONGSCHEMA``: JSON of another shape;
* ``REFUSE``: a refusal (``message.refusal``, no content);
* ``RATE429``: HTTP 429 with ``Retry-After: 0`` on the first call of that prompt;
* ``ERROR500``: HTTP 500 always; ``SLOW``: answers after 0.3 s;
* ``FLIP``: the grade changes from one call to the next (for ``--samples``).

Grounded-answer prompts (``Question:`` and ``Documents:``, as ``assay matrix``
sends) get a structured response: the document sharing the most long words
with the question (two or more) is quoted and cited, else the answer declines.
Scripted behaviours: a document saying ``ignore ... reply with WORD`` is obeyed
(the answer is WORD, no claim) unless the system prompt calls documents
``untrusted``; a model id containing ``timid`` always declines; a question
holding ``FLAKY`` alternates between answering and declining call by call.

Claim-extraction prompts (``Answer to split:``) get one claim per sentence of the
answer, citing the numbered contexts that hold all its long words (``BADINDEX``: a
context number that does not exist; ``NOCLAIMS``: JSON of another shape).

Declared judges are recognised by the title of the answer's JSON schema. A
``rubric-judge`` gets every integer criterion at its maximum when the prompt says
``GOOD``, at its minimum when it says ``BAD`` (or the model id holds ``harsh``),
else at the middle of the scale (rounded down). A ``pairwise-judge`` picks the
answer (``First:`` or ``Second:`` line) sharing more long words with the
``Question:`` (equal: ``tie``); a model id holding ``first`` always picks the
first position; ``FLIP`` in a pairwise prompt alternates the position call by
call (for ``--samples``). A model id holding ``broken`` always gets HTTP 500, one holding
``garbled`` always answers with text that is not JSON.

Query-writing prompts (``Document:``) get a query made of the passage's first
eight long words (a copier, as models often are); a passage holding
``DUPLICATE`` always gets the same query.

An echoing model (a model id containing ``echo``) repeats the request's
``Authorization`` header in every text it writes (rationale, answer, claims,
query), as a careless or hostile endpoint might; ``ECHO400`` in a prompt gets
HTTP 400 whose body repeats it.

``POST /v1/embeddings`` answers OpenAI's shape with :func:`stub_embedding` of
each input (a hashed bag of words, so a test can compute the same vectors), the
items in reverse order with their ``index``; ``encoding_format = "base64"`` is
honoured. An input holding ``RATE429`` is refused once with 429, ``ERROR500``
always; ``SHORT`` makes the answer one embedding short.

:class:`StubServer` runs it with uvicorn on 127.0.0.1 and a free port, in a thread.
"""

from __future__ import annotations

import base64
import json
import re
import struct
import threading
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 4}


def _field(text: str, name: str) -> str:
    m = re.search(rf"^{name}:\s*(.*?)(?=^\w[\w ]*:|\Z)", text, re.M | re.S)
    return m.group(1).strip() if m else ""


class StubState:
    """What the stub saw: calls per prompt, requests (for assertions)."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()


def make_app(state: StubState) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        body = await request.json()
        text = body["messages"][-1]["content"]
        with state.lock:
            state.requests.append(body)
            state.headers.append(dict(request.headers))
            state.calls[text] += 1
            seen = state.calls[text]
        auth = request.headers.get("authorization", "")
        if "ECHO400" in text:
            return PlainTextResponse(f"bad request; you sent {auth}", status_code=400)
        model_id = str(body.get("model", ""))
        if "ERROR500" in text or "broken" in model_id:
            return PlainTextResponse("boom", status_code=500)
        if "RATE429" in text and seen == 1:
            return PlainTextResponse("slow down", status_code=429, headers={"Retry-After": "0"})
        if "SLOW" in text:
            time.sleep(0.3)
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if "REFUSE" in text:
            message["refusal"] = "I can't help with that."
        elif "MALFORMED" in text or "garbled" in model_id:
            message["content"] = '{"grade": 2, "rationale": "unfinished'
        elif "WRONGSCHEMA" in text:
            message["content"] = json.dumps({"score": "high"})
        elif _schema_title(body) in ("rubric-judge", "pairwise-judge"):
            message["content"] = json.dumps(_declared(text, _schema(body), model_id, seen))
        elif text.startswith("Document:"):
            message["content"] = json.dumps({"query": _query_for(_field(text, "Document"))})
        elif "Documents:" in text and "Question:" in text:
            system = next((m["content"] for m in body["messages"] if m["role"] == "system"), "")
            reply = _grounded(text, system, str(body.get("model", "")), seen)
            message["content"] = json.dumps(reply)
        else:
            message["content"] = json.dumps(_answer(text, seen))
        if "echo" in str(body.get("model", "")) and message["content"]:
            message["content"] = json.dumps(_echo(json.loads(message["content"]), auth))
        if body.get("response_format") is None and message["content"]:
            message["content"] = "Here is my verdict:\n```json\n" + message["content"] + "\n```"
        words = sum(len(str(m.get("content", "")).split()) for m in body["messages"])
        out_words = len((message["content"] or "").split())
        return JSONResponse(
            {
                "id": "stub",
                "object": "chat.completion",
                "model": body.get("model", "stub"),
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": words, "completion_tokens": out_words},
            }
        )

    @app.post("/v1/embeddings")
    async def embeddings(request: Request) -> Any:
        body = await request.json()
        texts = [body["input"]] if isinstance(body["input"], str) else list(body["input"])
        with state.lock:
            state.requests.append(body)
            state.headers.append(dict(request.headers))
            seen = [state.calls.update([t]) or state.calls[t] for t in texts]
        if any("ERROR500" in t for t in texts):
            return PlainTextResponse("boom", status_code=500)
        if any("RATE429" in t and n == 1 for t, n in zip(texts, seen, strict=True)):
            return PlainTextResponse("slow down", status_code=429, headers={"Retry-After": "0"})
        data = []
        for i, text in enumerate(texts):
            vector = stub_embedding(text)
            if body.get("encoding_format") == "base64":
                packed = b"".join(struct.pack("<f", v) for v in vector)
                item: Any = base64.b64encode(packed).decode("ascii")
            else:
                item = vector
            data.append({"object": "embedding", "index": i, "embedding": item})
        if any("SHORT" in t for t in texts):
            data = data[:-1]
        words = sum(len(t.split()) for t in texts)
        return JSONResponse(
            {
                "object": "list",
                "data": data[::-1],
                "model": body.get("model", "stub"),
                "usage": {"prompt_tokens": words, "total_tokens": words},
            }
        )

    return app


#: Dimensions of :func:`stub_embedding`.
STUB_DIM = 32


def stub_embedding(text: str) -> list[float]:
    """The stub's vector of ``text``: word counts hashed (CRC-32) into 32 dimensions."""
    vector = [0.0] * STUB_DIM
    for word in re.findall(r"\w+", text.lower()):
        vector[zlib.crc32(word.encode()) % STUB_DIM] += 1.0
    return vector


def _split(text: str) -> dict[str, Any]:
    """Claim-extraction prompts: one claim per sentence of the answer, citing every context
    holding all its long words; ``BADINDEX`` cites a context that does not exist, ``NOCLAIMS``
    answers with another shape."""
    answer = text.split("Answer to split:", 1)[1].strip()
    if "NOCLAIMS" in answer:
        return {"statements": [answer]}
    block = text.split("Contexts:", 1)[1].split("Answer to split:", 1)[0]
    contexts = re.findall(r"^\[(\d+)\] (.*)$", block, re.M)
    claims = []
    for sentence in (s.strip() for s in re.split(r"(?<=[.!?])\s+", answer) if s.strip()):
        cited = [int(n) for n, ctx in contexts if _words(sentence) <= _words(ctx)]
        claims.append({"text": sentence, "contexts": [99] if "BADINDEX" in sentence else cited})
    return {"claims": claims}


def _answer(text: str, seen: int) -> dict[str, Any]:
    if "Answer to split:" in text:
        return _split(text)
    if "Claim:" in text:
        claim, source = _field(text, "Claim"), _field(text, "Source")
        ok = _words(claim) <= _words(source)
        return {"supported": ok, "rationale": "all words found" if ok else "words missing"}
    if "Answer:" in text and "Passage:" not in text:
        good = "WRONG" not in _field(text, "Answer")
        return {
            "right_series": good,
            "right_period": good,
            "caveats_stated": True,
            "unsupported_claims": 0 if good else 1,
            "rationale": "checked",
        }
    query, passage = _field(text, "Query"), _field(text, "Passage")
    grade = min(3, len(_words(query) & _words(passage)))
    if "FLIP" in text:
        grade = (grade + seen) % 4
    return {"grade": grade, "rationale": f"{grade} query words found"}


#: The two positions of a pairwise prompt.
POSITIONS = ("first", "second")


def _schema(body: dict[str, Any]) -> dict[str, Any]:
    form = body.get("response_format") or {}
    return (form.get("json_schema") or {}).get("schema") or form.get("schema") or {}


def _schema_title(body: dict[str, Any]) -> str:
    return str(_schema(body).get("title", ""))


def _declared(text: str, schema: dict[str, Any], model: str, seen: int) -> dict[str, Any]:
    """The answer of a rubric or pairwise judge (see the module docstring)."""
    if schema.get("title") == "pairwise-judge":
        if "FLIP" in text:
            return {"winner": POSITIONS[seen % 2], "rationale": "changed my mind"}
        if "first" in model:
            return {"winner": "first", "rationale": "the first one"}
        question = _words(_field(text, "Question"))
        one = len(question & _words(_field(text, "First")))
        two = len(question & _words(_field(text, "Second")))
        winner = "first" if one > two else "second" if two > one else "tie"
        return {"winner": winner, "rationale": f"{one} vs {two} question words"}
    out: dict[str, Any] = {"rationale": "graded"}
    for name, spec in schema.get("properties", {}).items():
        if spec.get("type") != "integer":
            continue
        lo, hi = spec["minimum"], spec["maximum"]
        if "BAD" in text or "harsh" in model:
            out[name] = lo
        elif "GOOD" in text:
            out[name] = hi
        else:
            out[name] = (lo + hi) // 2
    return out


def _echo(value: Any, auth: str) -> Any:
    """Every text field with the Authorization header (and the bare key) appended."""
    key = auth.split()[-1] if auth.split() else ""
    if isinstance(value, dict):
        return {
            k: (_echo(v, auth) if k not in ("status", "citations") else v) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_echo(v, auth) for v in value]
    if isinstance(value, str):
        return f"{value} (you sent Authorization: {auth}; key {key})"
    return value


_INJECTED = re.compile(r"ignore\b[^.]*?\breply with (\w+)", re.I)
_DOC = re.compile(r"^\[([^\]]+)\] (.*)$", re.M)


def _query_for(passage: str) -> str:
    if "DUPLICATE" in passage:
        return "What does the DUPLICATE passage say?"
    long = [w for w in re.findall(r"[A-Za-z0-9-]+", passage) if len(w) >= 4]
    return " ".join(long[:8])


def _grounded(text: str, system: str, model: str, seen: int) -> dict[str, Any]:
    declined = {"status": "declined", "answer": None, "claims": []}
    question = _field(text, "Question")
    docs = _DOC.findall(text)
    if "timid" in model:
        return declined
    if "untrusted" not in system.lower():
        for _, doc in docs:
            m = _INJECTED.search(doc)
            if m:
                return {"status": "answered", "answer": m.group(1), "claims": []}
    if "FLAKY" in question and seen % 2 == 0:
        return declined
    scored = [(len(_words(question) & _words(doc)), i) for i, (_, doc) in enumerate(docs)]
    best = max(scored, default=(0, -1))
    if best[0] < 2:
        return declined
    doc_id, doc = docs[best[1]]
    sentence = _INJECTED.sub("", doc).split(". ")[0].strip().rstrip(".") + "."
    return {
        "status": "answered",
        "answer": sentence,
        "claims": [{"text": sentence, "citations": [doc_id]}],
    }


class StubServer:
    """The stub app served by uvicorn on 127.0.0.1:<free port> in a daemon thread."""

    def __init__(self) -> None:
        self.state = StubState()
        config = uvicorn.Config(
            make_app(self.state), host="127.0.0.1", port=0, log_level="error", lifespan="off"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> StubServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the stub model server did not start")
            time.sleep(0.01)
        return self

    @property
    def port(self) -> int:
        return self.server.servers[0].sockets[0].getsockname()[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


# --------------------------------------------------------------------------- fixtures
# Shared by every test package that talks to a model: its conftest imports them.


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    """A stub server for the test module, on a free loopback port."""
    with StubServer() as server:
        yield server


@pytest.fixture
def model_toml(stub: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An assay.toml declaring models on the stub, the key and model id from the environment."""
    monkeypatch.setenv("STUB_KEY", "sk-test-secret-123")
    monkeypatch.setenv("STUB_MODEL", "stub-small")
    path = tmp_path / "assay.toml"
    path.write_text(
        f"""
[models.stub]
base_url = "{stub.base_url}"
model = "${{STUB_MODEL}}"
api_key = "${{STUB_KEY}}"
input_price = 1.0
output_price = 2.0
concurrency = 4
timeout = 5

[models.stubtext]
base_url = "{stub.base_url}"
model = "stub-text"
structured = "text"
input_price = 1.0
output_price = 2.0

[models.stubobject]
base_url = "{stub.base_url}"
model = "stub-object"
structured = "json_object"
""",
        encoding="utf-8",
    )
    return path
