"""What assay's web pages share: security headers, the Jinja2 set-up, the base layout and CSS.

The judging app (:mod:`assay.judging.web`) and the result viewer
(:mod:`assay.view`) both build on it, so their pages look alike and are
protected alike (one Content-Security-Policy, one set of headers).
"""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "CSP": "assay.web.shared",
        "HEADERS": "assay.web.shared",
        "secure": "assay.web.shared",
        "template_env": "assay.web.shared",
    },
    globals(),
)
