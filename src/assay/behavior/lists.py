"""Result lists of a click table, left-aligned in rank order with unlogged ranks closed up.

The shape the click models fit: the dynamic Bayesian network (:mod:`assay.behavior.dbn`)
and the click statistics (:mod:`assay.behavior.stats`) both start here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assay.behavior.table import ClickTable


@dataclass(frozen=True)
class Lists:
    """Left-aligned result lists: pair index (-1 padding) and binary clicks."""

    pid: np.ndarray
    click: np.ndarray

    @property
    def valid(self) -> np.ndarray:
        """Mask of real cells."""
        return self.pid >= 0


def compact(table: ClickTable) -> Lists:
    """The shown cells of every instance, in rank order, gaps closed."""
    shown = table.shown
    order = np.argsort(~shown, axis=1, kind="stable")
    pid = np.take_along_axis(table.docs, order, axis=1)
    click = np.take_along_axis(table.signal > 0, order, axis=1) & (pid >= 0)
    width = int(shown.sum(axis=1).max(initial=0)) or 1
    return Lists(pid[:, :width], click[:, :width])
