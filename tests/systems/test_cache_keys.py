"""Cache keys: one digest (assay.core.hashing.cache_key); the keys of caches already on disk
keep their bytes (checked against hashlib's own SHA-256 of the same serialisation)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from assay.providers.call_cache import call_key
from assay.systems.cache import RunCache
from assay.systems.embeddings import EmbeddingCache

SRC = Path(__file__).resolve().parents[2] / "src" / "assay"


def test_run_cache_file_names_are_unchanged() -> None:
    key = {"system": "s", "k": 10}
    blob = json.dumps({"schema": 1, **key}, sort_keys=True, default=str)
    assert RunCache.digest(key) == hashlib.sha256(blob.encode()).hexdigest()[:32]


def test_embedding_cache_file_names_are_unchanged() -> None:
    blob = json.dumps({"model": "m", "corpus": "sha256:1", "fields": None}, sort_keys=True)
    expected = hashlib.sha256(blob.encode()).hexdigest()[:24]
    assert EmbeddingCache.key("m", "sha256:1", None) == expected


def test_only_the_hashing_module_calls_hashlib() -> None:
    callers = [
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if re.search(r"hashlib\.(sha|blake|md5|new)", p.read_text()) and p.name != "hashing.py"
    ]
    assert callers == ["judging/store.py"], callers  # an HMAC signature, not a cache key


def test_model_call_keys_keep_their_64_digits() -> None:
    assert re.fullmatch(
        r"[0-9a-f]{64}",
        call_key(endpoint="http://x", model="m", messages=[], params={}, schema=None, sample=0),
    )
