"""Content versions: one way to name what a file or a configuration holds.

Judgments, corpora, answer cases, system and matrix configurations, prompts
and source files are all identified by ``sha256:`` followed by 16 hex digits
of their content. Callers decide *what* content is hashed (the normalisation
that makes a version independent of file format or row order); this module
decides *how* the version is written. It imports nothing from assay.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

#: Prefix of every content version.
PREFIX = "sha256:"
#: Hex digits kept after the prefix.
DIGITS = 16


class ContentHash:
    """Incremental content version: feed chunks with :meth:`update`, read :meth:`version`."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()

    def update(self, chunk: bytes | str) -> None:
        """Add ``chunk`` (text is encoded as UTF-8)."""
        self._h.update(chunk.encode() if isinstance(chunk, str) else chunk)

    def version(self) -> str:
        """``sha256:`` and 16 hex digits of everything fed so far."""
        return PREFIX + self._h.hexdigest()[:DIGITS]


def canonical_json(value: Any) -> str:
    """``value`` as JSON with sorted keys and no spaces (unknown types as ``str``)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def content_version(content: bytes | str | Any) -> str:
    """The content version of ``content``: ``sha256:`` and 16 hex digits.

    Bytes are hashed as they are, text as UTF-8, anything else (a configuration,
    a list of prompt parts) as :func:`canonical_json`, so key order never
    changes a version.
    """
    if not isinstance(content, bytes | str):
        content = canonical_json(content)
    h = ContentHash()
    h.update(content)
    return h.version()


#: Hex digits of a cache key (the file name of an on-disk cache entry).
CACHE_KEY_DIGITS = 32


def cache_key(content: bytes | str, digits: int = CACHE_KEY_DIGITS) -> str:
    """The cache key of ``content`` (serialised by the caller): SHA-256 in hex, cut to ``digits``.

    The one digest of every cache key and fingerprint. ``digits`` is given only
    where a shorter or longer key is already on disk or in output (a cache
    written by an earlier version, a model id printed in results): changing it
    there would orphan those caches or change those bytes.
    """
    h = hashlib.sha256(content.encode() if isinstance(content, str) else content)
    return h.hexdigest()[:digits]


def digest64(data: bytes) -> int:
    """Eight bytes of BLAKE2b of ``data`` as an unsigned integer: an in-memory key of
    long bytes (:func:`assay.core.pairs.hashes` folds it into an id's hash), never stored."""
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def sha256_hex(data: bytes) -> str:
    """The full SHA-256 of ``data`` in hex (what ``sha256sum`` prints): a file's fingerprint."""
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: str | Any, chunk: int = 1 << 20) -> str:
    """The full SHA-256 of the file at ``path`` in hex, read in chunks (bounded memory)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()
