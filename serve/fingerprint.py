"""The fingerprint of a failed attempt: same change, same failure, same command, same id.

It ignores what changes from run to run of the same attempt: addresses, durations, timestamps,
UUIDs, temp paths, line and column numbers, hunk offsets, whitespace, and the order in which
parallel test runners report failures. A repeat is found by its fingerprint, so changing what it
covers changes which journal records count as the same attempt.
"""

from __future__ import annotations

import hashlib
import re

from ..store.attempts import Signature, changed_lines
from ..store.unidiff import parse_diff

__all__ = ["fingerprint", "normalise_volatile"]

_VOLATILE: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
        "<uuid>",
    ),
    (re.compile(r"0x[0-9a-fA-F]+"), "0x_"),
    (
        re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d)?(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"),
        "<ts>",
    ),
    (re.compile(r"\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b"), "<ts>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ns|us|µs|ms|s|sec|secs|seconds)\b"), "<dur>"),
    (
        re.compile(
            r"(?:[A-Za-z]:\\[^\s'\"]*\\Temp\\|(?:/private)?/var/folders/|/tmp/|/var/tmp/)"
            r"[^\s'\":)]*"
        ),
        "<tmp>",
    ),
    (re.compile(r"(\.[A-Za-z]{1,6})(?::\d+){1,2}\b"), r"\1:_"),
    (re.compile(r"(\.[A-Za-z]{1,6})\(\d+,\d+\)"), r"\1(_)"),
    (re.compile(r"\bline \d+"), "line _"),
    (re.compile(r"\b(goroutine|thread|pid|process) \(?\d+\)?"), r"\1 _"),
    (re.compile(r"\s+"), " "),
]


def normalise_volatile(text: str) -> str:
    """`text` without the parts that differ between two runs of the same failure."""
    for pattern, repl in _VOLATILE:
        text = pattern.sub(repl, text)
    return text.strip()


def fingerprint(diff: str, signature: Signature, command: str | None) -> str:
    """16 hex chars identifying an attempt: same change, same failure, same command."""
    parts = ["cmd", normalise_volatile(command or "")]
    files = parse_diff(diff)
    for change in files:
        parts.append(f"file {change.path}")
        parts.extend(normalise_volatile(line) for line in change.changed_text if line.strip())
    if not files:
        # hunks without file headers: their changed lines still tell two attempts apart
        parts.extend(normalise_volatile(line) for line in changed_lines(diff))
    parts.append("sig")
    for name in ("errors", "failing", "exceptions", "codes"):
        # sorted: parallel test runners report the same failures in any order
        parts.extend(sorted({f"{name}:{normalise_volatile(v)}" for v in getattr(signature, name)}))
    # a location's file identifies the failure; its line moves with every unrelated edit
    parts.extend(
        sorted({"loc:" + normalise_volatile(loc.rsplit(":", 1)[0]) for loc in signature.locations})
    )
    return hashlib.sha1("\n".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:16]
