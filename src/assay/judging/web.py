"""The judging web page: FastAPI routes, Jinja2 templates (autoescaped) and htmx.

Security: each person logs in with a link carrying a token signed by the
store's secret; the session cookie is ``HttpOnly`` and ``SameSite=Strict``;
every form carries a CSRF token checked on POST (and a foreign ``Origin`` is
refused, see :func:`assay.judging.limits.same_origin`); request bodies are capped
before they are read or the login is checked (:class:`assay.judging.limits.BodyLimit`);
ids are parsed strictly (:func:`assay.judging.limits.parse_id`); templates escape
every value; a Content-Security-Policy allows only the page's own scripts, so
even a document that slipped through escaping could run nothing. A person sees
only their own grades; the adjudication page shows a pair's grades only once
every assessor of that pair has graded it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request  # at run time: FastAPI reads the route annotations

from assay.core.errors import UsageError
from assay.judging.agreement import agreement_report
from assay.judging.limits import MAX_REASON_CHARS, BodyLimit, parse_id, same_origin
from assay.judging.review import check_answer
from assay.judging.store import GRADES, LATER, UNRATEABLE, JudgingStore
from assay.web.shared import HEADERS, secure, template_env

if TYPE_CHECKING:  # pragma: no cover
    from fastapi import FastAPI
    from fastapi.responses import Response

HERE = Path(__file__).parent
COOKIE = "assay_judge"
#: What each grade means, shown next to the buttons (the guidelines add the task's details).
RUBRIC = (
    ("0", "Not relevant: nothing in it helps answer the query."),
    ("1", "Related: on the topic, but it does not answer the query."),
    ("2", "Relevant: answers part of the query, or answers it with effort."),
    ("3", "Highly relevant: answers the query fully and directly."),
)
KEYS = (*GRADES, UNRATEABLE, "l", "a")
_HEADERS = HEADERS  # assay.web.shared: one policy for every assay page


def templates() -> Any:
    """The Jinja2 environment of the judging pages (autoescape on for every template)."""
    return template_env(HERE / "templates")


def render_guidelines(text: str) -> str:
    """Markdown guidelines as HTML, sanitised: raw HTML is shown as text, and links and
    images stay text too (a page that loads or points to nothing of another host)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).disable(["link", "image", "autolink"])
    return str(md.render(text))


def login_links(store: JudgingStore, base_url: str) -> dict[str, str]:
    """``{name: login URL}`` for everyone in the store."""
    return {
        name: f"{base_url.rstrip('/')}/login?as={name}&token={store.sign('login', name)}"
        for name in store.people()
    }


def create_app(
    store: JudgingStore,
    *,
    guidelines: str = "",
    documents: Callable[[str], Mapping[str, Any] | None] | None = None,
) -> FastAPI:
    """The judging application over ``store``.

    ``guidelines`` (Markdown) is shown rendered and sanitised beside every pair
    (:func:`render_guidelines`);
    ``documents`` returns a document's fields by id (a corpus), else the
    pool line's ``document`` is shown.
    """
    from fastapi import FastAPI
    from fastapi.staticfiles import StaticFiles

    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    env = templates()
    ctx = _Context(store, env, guidelines, documents)

    secure(app, _HEADERS)  # the shared CSS and htmx at /shared; the headers
    app.add_middleware(BodyLimit)  # added last: runs first, before any route or login check
    app.add_api_route("/login", ctx.login, methods=["GET"])
    app.add_api_route("/", ctx.page, methods=["GET"])
    app.add_api_route("/act", ctx.act, methods=["POST"])
    app.add_api_route("/undo", ctx.undo, methods=["POST"])
    app.add_api_route("/agreement", ctx.agreement, methods=["GET"])
    app.add_api_route("/mine", ctx.mine, methods=["GET"])
    app.add_api_route("/adjudicate", ctx.adjudicate, methods=["POST"])
    return app


class _Context:
    """The routes, sharing the store, the templates and the page's fixed parts."""

    def __init__(self, store: JudgingStore, env: Any, guidelines: str, documents: Any) -> None:
        self.store = store
        self.env = env
        self.guidelines = render_guidelines(guidelines) if guidelines.strip() else ""
        self.documents = documents
        self.roles = store.people()
        self.review = store.review_items()
        self.shown = store.review_shown()

    # ------------------------------------------------------------- sessions
    def user(self, request: Request) -> str | None:
        """The logged-in person of a request (a valid session cookie), else ``None``."""
        name, _, token = (request.cookies.get(COOKIE) or "").partition(":")
        if name in self.roles and self.store.check("login", name, token):
            return name
        return None

    def login(self, request: Request) -> Response:
        """``/login?as=NAME&token=T``: set the session cookie, go to the page."""
        from fastapi.responses import HTMLResponse, RedirectResponse

        name = request.query_params.get("as", "")
        token = request.query_params.get("token", "")
        if name not in self.roles or not self.store.check("login", name, token):
            return HTMLResponse(self._render("denied.html", reason="bad login link"), 403)
        response = RedirectResponse("/", status_code=303)
        value = f"{name}:{token}"
        response.set_cookie(COOKIE, value, httponly=True, samesite="strict", path="/")
        return response

    async def _form(self, request: Request) -> tuple[str, dict[str, str]] | Response:
        """The user and the fields of a POSTed form, or the refusal (403)."""
        from fastapi.responses import HTMLResponse

        if not same_origin(request.headers):
            return HTMLResponse(self._render("denied.html", reason="foreign origin"), 403)
        user = self.user(request)
        if user is None:
            return HTMLResponse(self._render("denied.html", reason="not logged in"), 403)
        body = (await request.body()).decode("utf-8", errors="replace")  # capped by BodyLimit
        form = {k: v[-1] for k, v in parse_qs(body, keep_blank_values=True).items()}
        if not self.store.check("csrf", user, form.get("csrf", "")):
            return HTMLResponse(self._render("denied.html", reason="bad CSRF token"), 403)
        return user, form

    # ------------------------------------------------------------- grading
    def page(self, request: Request) -> Response:
        """The judging page: the next pair of the logged-in assessor."""
        from fastapi.responses import HTMLResponse

        user = self.user(request)
        if user is None:
            return HTMLResponse(self._render("denied.html", reason="not logged in"), 401)
        shown = request.query_params.get("pair")
        pid = parse_id(shown)
        if shown is not None and pid is None:
            return self._refusal(400, f"pair {shown[:20]!r} is not a pair id", user)
        if pid is not None and pid not in self.store.state(user):
            return self._refusal(404, f"pair {pid} is not one of yours", user)
        return HTMLResponse(self._render("judge.html", **self.card(user, pid)))

    def _refusal(self, status: int, reason: str, user: str | None = None) -> Response:
        """The "not allowed" page with ``reason`` and an HTTP ``status``."""
        from fastapi.responses import HTMLResponse

        role = self.roles.get(user) if user is not None else None
        return HTMLResponse(
            self._render("denied.html", reason=reason, user=user, role=role), status
        )

    async def act(self, request: Request) -> Response:
        """POST a grade, ``u`` or ``later`` for a pair; answer with the next pair's card."""
        got = await self._form(request)
        if not isinstance(got, tuple):
            return got
        user, form = got
        return await run_in_threadpool(self._act, request, user, form)

    def _act(self, request: Request, user: str, form: dict[str, str]) -> Response:

        value = form.get("value", "")
        value = LATER if value == "l" else value
        reason = form.get("reason", "")
        pid = parse_id(form.get("pair"))
        if pid is None:
            return self._refusal(400, "the form names no valid pair", user)
        if pid not in self.store.state(user):
            return self._refusal(404, f"pair {pid} is not one of yours", user)
        try:
            check_answer(self.review.get(pid, (None, None))[1], self.shown, value, reason)
            event = self.store.act(user, pid, value, reason.strip() or None)
        except UsageError as exc:  # shown on the same pair (htmx swaps 200s only)
            return self._card_response(request, user, pid, error=str(exc))
        return self._card_response(request, user, None, ack=event)

    async def undo(self, request: Request) -> Response:
        """POST: undo the newest action still standing; show that pair again."""
        got = await self._form(request)
        if not isinstance(got, tuple):
            return got
        return await run_in_threadpool(self._undo, request, got[0])

    def _undo(self, request: Request, user: str) -> Response:
        event = self.store.undo(user)
        shown = event.pair_id if event is not None else None
        error = None if event is not None else "nothing to undo"
        return self._card_response(request, user, shown, ack=event, error=error)

    def _card_response(
        self,
        request: Request,
        user: str,
        pid: int | None,
        *,
        ack: Any = None,
        error: str | None = None,
        status: int = 200,
    ) -> Response:
        from fastapi.responses import HTMLResponse, RedirectResponse

        if request.headers.get("hx-request") != "true":  # a plain form post (no JavaScript)
            where = f"/?pair={pid}" if pid is not None else "/"
            return RedirectResponse(where, status_code=303)
        html = self._render("card.html", **self.card(user, pid, ack=ack, error=error))
        return HTMLResponse(html, status)

    def card(self, user: str, pid: int | None, **extra: Any) -> dict[str, Any]:
        """The template values of one person's card: their pair, their value, progress."""
        state = self.store.state(user)
        if pid is None or pid not in state:
            pid = self.store.next_pair(user)
        pair = self.store.pairs([pid])[pid].pair if pid is not None else None
        document = self._document(pair) if pair is not None else None
        progress = self.store.progress()
        item = self.review.get(pid) if pid is not None else None
        return {
            "review": item is not None,
            "model_grade": item[1] if item is not None and self.shown else None,
            "user": user,
            "role": self.roles.get(user),
            "csrf": self.store.sign("csrf", user),
            "pid": pid,
            "pair": pair,
            "current": state.get(pid) if pid is not None else None,
            "document": document,
            "mine": progress.get(user, {"assigned": 0, "done": 0, "later": 0, "left": 0}),
            "progress": progress,
            "rubric": RUBRIC,
            "guidelines": self.guidelines,
            "ack": extra.get("ack"),
            "error": extra.get("error"),
        }

    def _document(self, pair: Any) -> Mapping[str, Any] | None:
        """A pair's document: from the corpus when the server has one, else the pool line's."""
        found = self.documents(pair.doc_id) if self.documents else None
        return found if found is not None else pair.document

    def mine(self, request: Request) -> Response:
        """The logged-in person's own pairs, query by query, with their current values;
        each opens its card to be graded again."""
        from fastapi.responses import HTMLResponse

        user = self.user(request)
        if user is None:
            return HTMLResponse(self._render("denied.html", reason="not logged in"), 401)
        state = self.store.state(user)
        pairs = self.store.pairs(list(state))
        rows = [(pid, pairs[pid].pair, value) for pid, value in state.items() if pid in pairs]
        rows.sort(key=lambda r: (r[1].query_id, pairs[r[0]].position))
        return HTMLResponse(
            self._render("mine.html", user=user, role=self.roles.get(user), rows=rows)
        )

    # ------------------------------------------------------------- adjudication
    def agreement(self, request: Request) -> Response:
        """Agreement per assessor pair and query class; the queue of disagreements."""
        from fastapi.responses import HTMLResponse

        user = self.user(request)
        if user is None:
            return HTMLResponse(self._render("denied.html", reason="not logged in"), 401)
        if self.roles.get(user) != "adjudicator":  # grades of others stay hidden from assessors
            return HTMLResponse(self._render("denied.html", reason="adjudicators only"), 403)
        report = agreement_report(self.store)
        queue = [o for o in report.disagreements if o.adjudication is None]
        settled = [o for o in report.disagreements if o.adjudication is not None]
        html = self._render(
            "agreement.html",
            user=user,
            role=self.roles.get(user),
            csrf=self.store.sign("csrf", user),
            report=report,
            queue=queue,
            settled=settled,
            documents={o.pair_id: self._document(o.pair) for o in queue},
            grades=GRADES,
        )
        return HTMLResponse(html)

    async def adjudicate(self, request: Request) -> Response:
        """POST (adjudicators only): the final grade of a disputed pair, with a reason."""
        got = await self._form(request)
        if not isinstance(got, tuple):
            return got
        user, form = got
        return await run_in_threadpool(self._adjudicate, user, form)

    def _adjudicate(self, user: str, form: dict[str, str]) -> Response:
        from fastapi.responses import HTMLResponse, RedirectResponse

        if self.roles.get(user) != "adjudicator":
            return HTMLResponse(self._render("denied.html", reason="adjudicators only"), 403)
        pid = parse_id(form.get("pair"))
        if pid is None:
            return self._refusal(400, "the form names no valid pair", user)
        if not self.store.pairs([pid]):
            return self._refusal(404, f"no pair {pid} in this store", user)
        try:
            self.store.adjudicate(user, pid, form.get("grade", ""), form.get("reason", ""))
        except UsageError as exc:
            return self._refusal(400, str(exc), user)
        return RedirectResponse("/agreement", status_code=303)

    def _render(self, name: str, **values: Any) -> str:
        values.setdefault("user", None)
        values.setdefault("role", None)
        return self.env.get_template(name).render(keys=KEYS, max_reason=MAX_REASON_CHARS, **values)
