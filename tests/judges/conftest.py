"""Model tests use the local OpenAI-compatible stub server of tests/llm_stub.py."""

from llm_stub import model_toml, stub

__all__ = ["model_toml", "stub"]
