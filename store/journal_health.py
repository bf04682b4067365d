"""The journal's health: how many records it holds and which lines a read has to skip.

One function (`journal_health`) answers for `status`, `doctor`, the CLI's warnings and every MCP
answer, so they all count the same lines. Every stream file is read with its record types'
validator (`VALIDATORS`; a stream without one gets the journal's own check only). Skipped lines
are only reported: they stay in the file as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .attempts import STREAM as FAILURES
from .attempts import check_line
from .errors import JournalError
from .journal import Journal, Skipped, Validator

VALIDATORS: Mapping[str, Validator] = MappingProxyType({FAILURES: check_line})
SHOWN_LINES = 5  # line numbers named in a one-line notice
LISTED_LINES = 100  # skipped lines listed in a report (the count is always whole)


@dataclass(frozen=True)
class JournalHealth:
    records: int = 0
    skipped: tuple[Skipped, ...] = ()
    error: str | None = None  # the journal could not be read at all

    @property
    def ok(self) -> bool:
        return not self.skipped and self.error is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "skipped": len(self.skipped),
            "skipped_lines": [s.to_dict() for s in self.skipped[:LISTED_LINES]],
            "error": self.error,
        }

    def notice(self) -> str | None:
        """One line for a warning, None when there is nothing to say."""
        if self.error is not None:
            return f"the journal cannot be read: {self.error}"
        return skipped_notice(self.skipped)


def skipped_notice(skipped: Sequence[Skipped]) -> str | None:
    """`journal: 2 unreadable lines skipped (failures.jsonl lines 3, 7) ...`, or None."""
    if not skipped:
        return None
    by_file: dict[str, list[int]] = {}
    for s in skipped:
        by_file.setdefault(s.file, []).append(s.line)
    where = []
    for name, lines in by_file.items():
        shown = ", ".join(str(n) for n in lines[:SHOWN_LINES])
        more = f" and {len(lines) - SHOWN_LINES} more" if len(lines) > SHOWN_LINES else ""
        where.append(f"{name} line{'s' if len(lines) > 1 else ''} {shown}{more}")
    n = len(skipped)
    return (
        f"journal: {n} unreadable line{'s' if n > 1 else ''} skipped ({'; '.join(where)}); "
        "kept in the file as they are, `gitstrata doctor` says why"
    )


def journal_health(journal_root: Path) -> JournalHealth:
    """Read every stream of the journal at `journal_root` and count what fits and what not."""
    journal = Journal(journal_root)
    records = 0
    skipped: list[Skipped] = []
    try:
        for stream in journal.streams():
            got = journal.read(stream, VALIDATORS.get(stream))
            records += len(got.records)
            skipped.extend(got.skipped)
    except (JournalError, OSError) as exc:
        return JournalHealth(records, tuple(skipped), str(exc))
    return JournalHealth(records, tuple(skipped))


class JournalWatch:
    """`journal_health` for a long-running reader: read again only when a stream's size
    changed (a stat per stream per call, no read)."""

    def __init__(self, journal_root: Path) -> None:
        self.root = Path(journal_root)
        self._journal = Journal(self.root)
        self._sig: str | None = None
        self._health = JournalHealth()

    def health(self) -> JournalHealth:
        sig = self._journal.signature()
        if sig != self._sig:
            self._health, self._sig = journal_health(self.root), sig
        return self._health
