"""Recording a failed attempt: an `Attempt` becomes a redacted, bounded journal record.

The record's format and the journal stream live in `store.attempts`; this module prepares what
goes into it. Invariants:

- Everything stored passed through `store.redact` first (diff, output, notes, command).
- Stored text is bounded: the diff keeps its head (`max_diff_bytes`), the output its tail
  (`max_trace_bytes`), where errors are printed last.
- Targets are the file the caller named (with its symbol) followed by the symbols the diff
  changed (`serve.targets`); the fingerprint (`serve.fingerprint`) is computed on the redacted
  text, so a secret never decides whether two attempts are the same.
- A target is a path inside the repository: the caller's file is refused otherwise
  (`InputError`); a path taken from the diff's headers that is absolute, climbs out with `..`
  or leads out through a symlink is left out, and the record says so (`target_notes`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..store.attempts import (
    Attempt,
    FailedAttempt,
    Target,
    diff_key,
    new_record,
    record_failure_line,
    relative_path,
)
from ..store.config import GraveyardConfig
from ..store.errors import InputError
from ..store.journal import Journal
from ..store.redact import Redactor, redact_counts
from .fingerprint import fingerprint
from .paths import stays_inside
from .signatures import extract_signature
from .targets import map_changed_lines, resolve_symbol_name

__all__ = ["build_failure_record", "record_attempt"]


MAX_TARGET_NOTES = 5


def _clean_path(path: str, repo_root: str | None) -> str:
    p = relative_path(path)
    if p is None or (repo_root is not None and not stays_inside(repo_root, p)):
        raise InputError(
            f"{path!r}: a failed attempt's file must be a path inside the repository",
            hint="pass the path relative to the repository root",
        )
    return p


def _head_bytes(text: str, limit: int) -> tuple[str, bool]:
    data = text.encode("utf-8", "surrogateescape")
    if len(data) <= limit:
        return text, False
    cut = data.rfind(b"\n", 0, limit)
    kept = data[: cut if cut > 0 else limit].decode("utf-8", "ignore")
    return f"{kept}\n... [diff truncated: {len(data) - len(kept.encode())} more bytes]", True


def _tail_bytes(text: str, limit: int) -> str:
    data = text.encode("utf-8", "surrogateescape")
    if len(data) <= limit:
        return text
    start = data.find(b"\n", len(data) - limit)
    start = start + 1 if start != -1 else len(data) - limit
    return f"[... {start} earlier bytes]\n" + data[start:].decode("utf-8", "ignore")


class _Scrubber:
    """Redacts texts and counts what it redacted, by kind, over all of them."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        self.counts: dict[str, int] = {}
        self.redactor = redactor

    def __call__(self, text: str | None) -> str | None:
        if text is None:
            return None
        out, found = redact_counts(text, self.redactor)
        for kind, n in found.items():
            self.counts[kind] = self.counts.get(kind, 0) + n
        return out


def _targets(
    attempt: Attempt, diff: str, symbols_rows: Any, repo_root: str | None
) -> tuple[list[Target], list[str]]:
    """The record's targets, and a note for each path of the diff left out of them."""
    targets: dict[Target, None] = {}
    notes: dict[str, None] = {}
    if attempt.file_path:
        path = _clean_path(attempt.file_path, repo_root)
        # named as preflight names it, so the next preflight of that symbol finds it
        symbol = attempt.symbol_name and resolve_symbol_name(
            path, attempt.symbol_name, symbols_rows
        )
        targets[(path, symbol or None)] = None
    for raw, qualname in map_changed_lines(diff, symbols_rows):
        rel = relative_path(raw)
        if rel is None or (repo_root is not None and not stays_inside(repo_root, rel)):
            shown = raw if len(raw) <= 120 else raw[:120] + "..."
            notes[f"left out {shown!r}, a path of the diff outside the repository"] = None
            continue
        if qualname is None and any(p == rel for p, _ in targets):
            continue  # the caller named this file already
        targets[(rel, qualname)] = None
    kept = list(notes)[:MAX_TARGET_NOTES]
    if len(notes) > len(kept):
        kept.append(f"and {len(notes) - len(kept)} more such paths")
    return list(targets), kept


def build_failure_record(
    attempt: Attempt,
    symbols_rows: Any = (),
    *,
    cfg: GraveyardConfig | None = None,
    repo_root: str | None = None,
    redactor: Redactor | None = None,
) -> dict[str, Any]:
    """The journal record of `attempt` (without `id`; with `ts` only if it has `recorded_at`).

    `symbols_rows`: HEAD's symbols (mappings or an Arrow table with path, qualname, start_line,
    end_line) that the diff's changed lines are mapped onto. `repo_root`: the repository's
    absolute path, so that locations in the output under it become repository-relative.
    `redactor`: the repository's (its `redaction.allow` / `deny` patterns), else the built-in
    rules.
    """
    cfg = cfg or GraveyardConfig()
    scrub = _Scrubber(redactor)
    diff = scrub(attempt.attempted_diff or "") or ""
    trace = scrub(attempt.error_trace or "") or ""
    clean = Attempt(
        file_path=attempt.file_path,
        notes=scrub(attempt.notes),
        symbol_name=attempt.symbol_name,
        command=scrub(attempt.command),
        exit_code=attempt.exit_code,
        recorded_at=attempt.recorded_at,
        signal=attempt.signal,
        source=attempt.source,
    )
    signature = extract_signature(trace, root=repo_root)
    excerpt, truncated = _head_bytes(diff, cfg.max_diff_bytes)
    targets, target_notes = _targets(attempt, diff, symbols_rows, repo_root)
    return new_record(
        clean,
        targets=targets,
        diff=excerpt,
        diff_bytes=len(diff.encode("utf-8", "surrogateescape")),
        diff_truncated=truncated,
        trace=_tail_bytes(trace, cfg.max_trace_bytes),
        signature=signature,
        fingerprint=fingerprint(diff, signature, clean.command),
        redactions=scrub.counts,
        key=diff_key(diff),
        target_notes=target_notes,
    )


def record_attempt(
    journal_root: str | Path,
    attempt: Attempt,
    symbols_rows: Any = (),
    *,
    cfg: GraveyardConfig | None = None,
    repo_root: str | None = None,
    redactor: Redactor | None = None,
) -> tuple[dict[str, Any], FailedAttempt]:
    """Build and append `attempt`'s record (or an occurrence of the same attempt); returns what
    was written and the failed attempt as it now reads, occurrences counted."""
    record = build_failure_record(
        attempt, symbols_rows, cfg=cfg, repo_root=repo_root, redactor=redactor
    )
    return record_failure_line(Journal(Path(journal_root)), record)
