"""Security headers, templates and static files shared by assay's web apps.

:data:`HEADERS` go on every response: a Content-Security-Policy allowing only
the app's own scripts, styles, images and connections (no inline script, no
other host), no framing, no MIME sniffing, no caching. :func:`template_env`
makes an autoescaping Jinja2 environment that finds the shared ``layout.html``
after the app's own templates. :data:`STATIC` holds the shared CSS and htmx,
mounted by each app at :data:`STATIC_URL`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
#: The shared static files (``base.css``, ``htmx.min.js``).
STATIC = HERE / "static"
#: Where each app mounts :data:`STATIC`.
STATIC_URL = "/shared"
#: The shared templates (``layout.html``).
TEMPLATES = HERE / "templates"

#: The policy of every page the apps serve: only the app's own resources.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
#: Headers set on every response (a route may set its own first).
HEADERS: dict[str, str] = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    # same-origin, not no-referrer: with no-referrer Chromium sends ``Origin: null`` on the
    # page's own form posts; other sites still get no referrer (a login token stays here)
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def template_env(folder: Path) -> Any:
    """An autoescaping Jinja2 environment over ``folder``, then the shared templates."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [jinja2.FileSystemLoader(folder), jinja2.FileSystemLoader(TEMPLATES)]
        ),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )


def secure(app: Any, headers: dict[str, str] | None = None) -> None:
    """Mount :data:`STATIC` on ``app`` and add :data:`HEADERS` (or ``headers``) to responses."""
    from fastapi.staticfiles import StaticFiles

    chosen = dict(HEADERS if headers is None else headers)
    app.mount(STATIC_URL, StaticFiles(directory=STATIC), name="shared")

    @app.middleware("http")
    async def _headers(request: Any, call_next: Any) -> Any:
        response = await call_next(request)
        for key, value in chosen.items():
            response.headers.setdefault(key, value)
        return response
