"""The ``assay view`` application: result pages and a JSON API, read-only.

Every route is a GET (anything else is refused by FastAPI with 405); bodies are
capped (:class:`assay.judging.limits.BodyLimit`); every response carries the
shared security headers (:mod:`assay.web.shared`: a Content-Security-Policy
allowing only the app's own scripts and styles); templates escape every
value; with ``allowed_hosts`` a request naming another host is refused (no
DNS rebinding onto the local port). Nothing is written anywhere.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request  # at run time: FastAPI reads the route annotations

from assay.core.errors import AssayError, UsageError
from assay.judging.limits import BodyLimit
from assay.report.html.by_kind import page_for
from assay.report.html.compare_pages import comparison_query_page
from assay.report.html.history_pages import history_page
from assay.report.html.matrix_pages import cell_page, matrix_page, read_cases
from assay.report.html.pages import Links, Page, evaluation_query_page, query_row
from assay.report.html.render import render_page
from assay.report.plotly_page import plotly_css, plotly_js
from assay.view.catalog import Catalog, Summary
from assay.view.evidence import RankedList, ranked_list, warm
from assay.web.shared import secure

if TYPE_CHECKING:  # pragma: no cover
    from fastapi import FastAPI
    from fastapi.responses import Response

#: The pages' own CSS and script (shared with the files ``assay report`` writes).
STATIC = Path(__file__).parents[1] / "report" / "html" / "static"


def make_app(
    files: Sequence[str | Path] = (),
    *,
    store: str | None = None,
    corpus: str | Path | None = None,
    id_field: str | None = None,
    text_fields: Sequence[str] | None = None,
    allowed_hosts: Sequence[str] | None = None,
) -> FastAPI:
    """The viewer over result ``files`` and the history ``store`` (read-only).

    Without files the store is read (``store`` or the default, see
    :func:`assay.store.api.resolve_url`); with files, the store only when
    ``store`` is given. ``corpus`` (with ``id_field`` and ``text_fields``) gives documents' text
    where a run's provenance names no corpus. Raises :class:`UsageError` /
    :class:`InputError` for a file or store that cannot be read.
    """
    fields = tuple(text_fields) if text_fields else None
    return _build(Catalog(files, store), (corpus, id_field, fields), allowed_hosts)


def _build(catalog: Catalog, corpus: tuple[Any, Any, Any], hosts: Any) -> FastAPI:
    from fastapi import FastAPI
    from fastapi.staticfiles import StaticFiles

    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    secure(app)
    if hosts:
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))
    app.add_middleware(BodyLimit)
    routes = _Routes(catalog, corpus)
    app.state.catalog = catalog
    for path, handler in (
        ("/", routes.home),
        ("/history", routes.history),
        ("/plotly.js", routes.plotly),
        ("/plotly.css", routes.plotly_css),
        ("/favicon.ico", routes.favicon),
        ("/api/results", routes.api_list),
        ("/api/results/{rid}", routes.api_one),
        ("/r/{rid}", routes.result),
        ("/r/{rid}/q/{qid}", routes.query),
        ("/r/{rid}/q/{qid}/pool.jsonl", routes.pool),
        ("/r/{rid}/cell/{vi}/{ci}", routes.cell),
    ):
        app.add_api_route(path, handler, methods=["GET"])
    app.router.on_shutdown.append(catalog.close)
    return app


class _Routes:
    """The page and API handlers over one catalog."""

    def __init__(self, catalog: Catalog, corpus: tuple[Any, Any, Any]) -> None:
        self.catalog = catalog
        path, id_field, fields = corpus
        self.corpus = (str(path) if path else None, id_field, fields)

    # ------------------------------------------------------------------ helpers
    def _html(self, page: Page, status: int = 200) -> Response:
        from fastapi.responses import HTMLResponse

        return HTMLResponse(render_page(page, served=True), status)

    def _missing(self, message: str, status: int = 404) -> Response:
        return self._html(
            Page(template="missing.html", title="Not found", values={"message": message}), status
        )

    def _get(self, rid: str) -> Any:
        try:
            return self.catalog.get(rid)
        except UsageError:
            return None

    # ------------------------------------------------------------------ pages
    def home(self, request: Request) -> Response:
        """Every result, newest first, filtered by kind, system and free text."""
        params = request.query_params
        kind, system, text = (params.get(k, "")[:200] for k in ("kind", "system", "q"))
        every = self.catalog.summaries()
        shown = [s for s in every if _matches(s, kind, system, text)]
        return self._html(
            Page(
                template="home.html",
                title="Results",
                values={
                    "results": shown,
                    "total": len(every),
                    "kinds": sorted({s.kind for s in every}),
                    "systems": sorted({s.system for s in every if s.system}),
                    "f": {"kind": kind, "system": system, "q": text},
                    "store": self.catalog.store_name,
                },
            )
        )

    def history(self) -> Response:
        """The store's results over time."""

        report, spans = self.catalog.history()
        return self._html(history_page(report, Links(None, served=True), spans))

    def plotly(self) -> Response:
        """plotly.js, from this app (no CDN)."""
        from fastapi.responses import Response as Plain

        return Plain(
            plotly_js(), media_type="text/javascript", headers={"Cache-Control": "max-age=3600"}
        )

    def plotly_css(self) -> Response:
        """plotly.js's own style rules as a stylesheet (the CSP refuses injected styles)."""
        from fastapi.responses import Response as Plain

        return Plain(plotly_css(), media_type="text/css", headers={"Cache-Control": "max-age=3600"})

    def favicon(self) -> Response:
        """No icon (answered, so the browser does not log a missing file)."""
        from fastapi.responses import Response as Plain

        return Plain(status_code=204)

    def result(self, rid: str) -> Response:
        """A result's page (by its kind)."""

        result = self._get(rid)
        if result is None:
            return self._missing(f"There is no result {rid[:40]!r}.")
        links = Links(rid, served=True)
        if result.kind == "matrix":
            return self._html(matrix_page(result, links))
        page = self._html(page_for(result, links))
        self.warm(rid, result)  # once the page is made: not competing with it
        return page

    def warm(self, rid: str, result: Any) -> None:
        """Index the runs behind an evaluation or comparison and read its judgment set, on
        other threads (:func:`assay.view.evidence.warm`): its query pages find them
        ready."""

        if result.kind == "evaluation":
            judged = (result.judgments.path, result.judgments.format)
            warm(result.run.path, self.catalog.folders(rid), judged)
        elif result.kind == "comparison":
            judged = self.catalog.judgments_for(result.judgments_version)
            for s in result.systems:
                warm(s.path, self.catalog.folders(rid), judged)

    def query(self, rid: str, qid: str, request: Request) -> Response:
        """A query of an evaluation or comparison, with its ranked lists."""

        result = self._get(rid)
        if result is None or result.kind not in ("evaluation", "comparison"):
            return self._missing(f"There is no evaluation or comparison {rid[:40]!r}.")
        links, folders = Links(rid, served=True), self.catalog.folders(rid)
        if result.kind == "evaluation":
            judged = (result.judgments.path, result.judgments.format)
            ranked = _safe(
                lambda: ranked_list(
                    result.run.name,
                    result.run.path,
                    qid,
                    folders,
                    judgments=judged,
                    corpus=self.corpus,
                ),
                result.run.name,
            )
            pool = f"/r/{rid}/q/{qid}/pool.jsonl"
            return self._html(evaluation_query_page(result, qid, links, ranked, pool))
        cand = request.query_params.get("cand") or result.candidates[0]
        if cand not in result.candidates:
            return self._missing(f"{cand[:40]!r} is not a candidate of this comparison.")
        paths = {s.name: s.path for s in result.systems}
        judged = self.catalog.judgments_for(result.judgments_version)

        def one(name: str) -> Any:
            return ranked_list(
                name, paths.get(name), qid, folders, judgments=judged, corpus=self.corpus
            )

        lists = tuple(_safe(lambda n=name: one(n), name) for name in (result.baseline, cand))
        return self._html(comparison_query_page(result, qid, cand, links, lists))

    def pool(self, rid: str, qid: str) -> Response:
        """The query's unjudged documents as a judging pool (``assay judge serve POOL``)."""
        from fastapi.responses import Response as Plain

        result = self._get(rid)
        if result is None or result.kind != "evaluation":
            return self._missing(f"There is no evaluation {rid[:40]!r}.")
        judged = (result.judgments.path, result.judgments.format)
        ranked = _safe(
            lambda: ranked_list(
                result.run.name,
                result.run.path,
                qid,
                self.catalog.folders(rid),
                judgments=judged,
                corpus=self.corpus,
            ),
            result.run.name,
        )
        row = query_row(result, qid) or {}
        lines = [
            json.dumps(
                {
                    "query_id": qid,
                    "query": row.get("text") or "",
                    "doc_id": d.doc_id,
                    "document": {"text": d.text or ""},
                },
                ensure_ascii=False,
            )
            for d in ranked.docs
            if d.grade is None
        ]
        name = "".join(c if c.isalnum() else "-" for c in qid)[:60]
        return Plain(
            "".join(line + "\n" for line in lines),
            media_type="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="pool-{name}.jsonl"'},
        )

    def cell(self, rid: str, vi: int, ci: int) -> Response:
        """A matrix cell: its repeats and its case."""

        result = self._get(rid)
        if result is None or result.kind != "matrix":
            return self._missing(f"There is no matrix {rid[:40]!r}.")
        if not (0 <= vi < len(result.variants) and 0 <= ci < len(result.case_ids)):
            return self._missing("There is no such cell.")
        cases = read_cases(result, self.catalog.folders(rid))
        return self._html(cell_page(result, vi, ci, Links(rid, served=True), cases))

    # ------------------------------------------------------------------ API
    def api_list(self) -> list[Summary]:
        """Every result's summary, newest first."""
        return self.catalog.summaries()

    def api_one(self, rid: str) -> Response:
        """One result as its result file holds it."""
        from fastapi.responses import JSONResponse
        from fastapi.responses import Response as Plain

        result = self._get(rid)
        if result is None:
            return JSONResponse({"detail": f"no result {rid[:40]!r}"}, 404)
        return Plain(result.model_dump_json(), media_type="application/json")


def _matches(s: Summary, kind: str, system: str, text: str) -> bool:
    if kind and s.kind != kind:
        return False
    if system and s.system != system:
        return False
    hay = " ".join(str(v) for v in s.model_dump().values() if v).lower()
    return not text or text.lower() in hay


def _safe(load: Any, system: str) -> Any:
    """A ranked list, or an empty one saying why it could not be read."""

    try:
        return load()
    except (AssayError, OSError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
        return RankedList(system=system, notes=[f"The ranked list could not be read: {first}"])
