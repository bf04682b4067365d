"""Stable identifiers shared by every artifact.

A symbol's id depends only on its path and qualified name, so tables of different stages and of
different generations join on it, and a symbol keeps its id while its body changes.
"""

from __future__ import annotations

import hashlib

MODULE_SYMBOL = "<module>"


def symbol_id(path: str, qualname: str) -> str:
    """16 hex chars of sha1("path::qualname")."""
    return hashlib.sha1(f"{path}::{qualname}".encode("utf-8", "surrogateescape")).hexdigest()[:16]
