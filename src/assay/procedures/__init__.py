"""Procedures: evaluate, compare, gate and verify-suite, each a library function with a typed result."""
