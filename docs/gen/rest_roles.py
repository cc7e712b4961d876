"""A griffe extension: the reST markup of assay's docstrings shown as Markdown in the API pages.

assay's docstrings use Sphinx roles (``:func:`~assay.evaluate```) and double
backticks for code; the API reference renders them as inline code, the
target's last name when the role starts with ``~``.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj):`(~?)([^`]+)`")
DOUBLE = re.compile(r"``([^`]+)``")


def markdown(text: str) -> str:
    """``text`` with Sphinx roles and double backticks turned into Markdown inline code."""

    def role(m: re.Match[str]) -> str:
        target = m[2]
        return f"`{target.rsplit('.', 1)[-1]}`" if m[1] else f"`{target}`"

    return DOUBLE.sub(r"`\1`", ROLE.sub(role, text))


class RestRoles(Extension):
    """Rewrite every docstring as it is loaded."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        """Called for every loaded object (module, class, function, attribute)."""
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
