"""The failed-attempt record: its journal format, its parsing, its labels and ids.

A failed attempt is what a caller (`gitstrata exec`, the Python API, the MCP `record_failure`
tool) says about a change that failed: an `Attempt`. Built into a record, it is one JSON line in
the journal stream `failures` with these fields (besides the journal's `id` and `ts`):

    kind            "failed_attempt"
    source          "api" (the Python API and MCP) | "exec" (`gitstrata exec`)
    targets         [{"path": ..., "qualname": ... or null}], repository-relative
    diff            the attempted unified diff against HEAD, head kept, redacted
    diff_bytes      size of the whole diff; diff_truncated: whether `diff` was cut
    trace           the failing output, tail kept, redacted
    signature       {"tools", "errors", "failing", "exceptions", "codes", "locations": [...]}
    fingerprint     16 hex chars; the same attempt failing the same way has the same one
    command, exit_code, signal, notes
    redactions      {secret kind: count}

A repeat of a live record appends `{"op": "occurrence", "target": id, ...}` and forgetting one
appends a tombstone `{"op": "forget", "target": id}`; nothing is ever rewritten, and
`load_failures` folds both. The read side and the pipeline's `documents` stage parse records only
through `FailedAttempt.from_record`. A reverted commit is a failed attempt too, without a journal
record: its id is `revert:<sha10>` (`revert_id`); muting it appends the same tombstone with that
id as target (`"revert:<sha prefix>"`), which the read side honours (`forgotten_reverts`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from .errors import InputError, JournalError
from .journal import Journal
from .lock import FileLock
from .unidiff import parse_diff

STREAM = "failures"
KIND = "failed_attempt"
REVERT_PREFIX = "revert:"

Target = tuple[str, str | None]  # (path, qualname); qualname None: the file as a whole

__all__ = [
    "KIND",
    "STREAM",
    "Attempt",
    "FailedAttempt",
    "PayloadLimits",
    "Signature",
    "Target",
    "append_failure",
    "changed_lines",
    "forget_failure",
    "forgotten_reverts",
    "load_failures",
    "parse_failure_id",
    "revert_id",
    "target_label",
    "touched_lines",
]


def target_label(target: Target) -> str:
    """`path::qualname`, or the path alone for a file-level target."""
    path, qualname = target
    return f"{path}::{qualname}" if qualname else path


def revert_id(sha: str) -> str:
    """The failure id of a reverted commit (reverts have no journal id)."""
    return f"{REVERT_PREFIX}{sha[:10]}"


_REVERT_ID = re.compile(r"revert:([0-9a-f]{7,40})")


def parse_failure_id(text: str | int) -> int | str:
    """A failure id as a user types it: `12` (a recorded attempt) or `revert:<sha>` (a reverted
    commit, 7 to 40 hex digits; stored lowercased)."""
    if isinstance(text, int):
        return text
    raw = text.strip()
    if raw.isdigit():
        return int(raw)
    m = _REVERT_ID.fullmatch(raw.lower())
    if m is None:
        raise InputError(
            f"{text!r} is not a failed attempt id",
            hint="use a number from `gitstrata graveyard` or revert:<sha> from a preflight warning",
        )
    return REVERT_PREFIX + m.group(1)


def changed_lines(diff: str, *, keep_blank: bool = False) -> list[str]:
    """The `-`/`+` lines of a diff text, marker kept, file headers left out (no hunk counting:
    also works on excerpts that lost their headers). `keep_blank` keeps lines with no text."""
    return [
        line
        for line in diff.splitlines()
        if line[:1] in "+-"
        and not line.startswith(("+++", "---"))
        and (keep_blank or line[1:].strip())
    ]


def touched_lines(diff: str) -> frozenset[str]:
    """The lines a diff changed, stripped: the ones it removed or replaced, and for a pure
    insertion the context lines on either side of it (what it was wedged between). Only lines
    with a letter or digit count, so a brace or a blank line is no evidence of anything."""
    out: set[str] = set()
    lines = [ln for ln in diff.splitlines() if not ln.startswith(("+++", "---"))]
    i = 0
    while i < len(lines):
        if lines[i][:1] not in "+-":
            i += 1
            continue
        start = i
        while i < len(lines) and lines[i][:1] in "+-":
            i += 1
        run = lines[start:i]
        removed = [ln[1:] for ln in run if ln[:1] == "-"]
        if not removed:
            around = [lines[j] for j in (start - 1, i) if 0 <= j < len(lines)]
            removed = [ln[1:] for ln in around if ln[:1] == " "]
        out.update(t for t in (ln.strip() for ln in removed) if any(c.isalnum() for c in t))
    return frozenset(out)


# ---------------------------------------------------------------- input


@dataclass(frozen=True)
class PayloadLimits:
    """Largest texts an edge accepts, in UTF-8 bytes: the diff and trace, the notes and command."""

    payload: int
    note: int


@dataclass(frozen=True)
class Attempt:
    """What a caller says about one failed attempt; a record is built from it.

    Empty strings for the optional texts mean "not given". `recorded_at` (ISO 8601) replaces the
    journal's own timestamp, for imports of attempts made earlier.
    """

    file_path: str | None
    attempted_diff: str = ""
    error_trace: str = ""
    notes: str | None = None
    symbol_name: str | None = None
    command: str | None = None
    exit_code: int | None = None
    recorded_at: str | None = None
    signal: int | None = None
    source: str = "api"

    def __post_init__(self) -> None:
        for name in ("notes", "symbol_name", "command", "recorded_at"):
            if getattr(self, name) == "":
                object.__setattr__(self, name, None)

    def validate(self, limits: PayloadLimits) -> None:
        """Refuse what no record should be made of: non-text, oversize or empty payloads."""
        for name, limit in (
            ("attempted_diff", limits.payload),
            ("error_trace", limits.payload),
            ("notes", limits.note),
            ("command", limits.note),
        ):
            text = getattr(self, name)
            if text is None and name in ("notes", "command"):
                continue
            if not isinstance(text, str):
                raise InputError(f"{name} must be text")
            size = len(text.encode("utf-8", "surrogatepass"))
            if size > limit:
                raise InputError(
                    f"{name} is {size} bytes, over the {limit // 1024} KB limit",
                    hint="send the relevant part: the failing hunks of a diff, the last lines of "
                    "an output",
                )
        if not (
            self.attempted_diff.strip() or self.error_trace.strip() or (self.notes or "").strip()
        ):
            raise InputError(
                "attempted_diff, error_trace and notes are all empty",
                hint="send the diff you tried (`git diff`) and the output that shows it failed",
            )


# ---------------------------------------------------------------- the stored signature


@dataclass(frozen=True)
class Signature:
    """The distinctive parts of a failure's output (extracted by `serve.signatures`)."""

    tools: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    failing: tuple[str, ...] = ()
    exceptions: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    locations: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, list[str]]:
        return {f.name: list(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Signature:
        return cls(**{f.name: tuple(data.get(f.name) or ()) for f in fields(cls)})

    def text(self) -> str:
        """The signature as text for term matching (locations reduced to their files)."""
        files = [loc.rsplit(":", 1)[0] for loc in self.locations]
        return "\n".join([*self.errors, *self.failing, *self.exceptions, *self.codes, *files])

    def __bool__(self) -> bool:
        return bool(self.errors or self.failing or self.exceptions or self.codes)


# ---------------------------------------------------------------- the record


def new_record(
    attempt: Attempt,
    *,
    targets: list[Target],
    diff: str,
    diff_bytes: int,
    diff_truncated: bool,
    trace: str,
    signature: Signature,
    fingerprint: str,
    redactions: Mapping[str, int],
) -> dict[str, Any]:
    """The journal record of `attempt` from its prepared (redacted, bounded) parts; the journal
    adds `id` and `ts` (`ts` is the attempt's `recorded_at` when it has one)."""
    record: dict[str, Any] = {
        "kind": KIND,
        "source": attempt.source,
        "targets": [{"path": p, "qualname": q} for p, q in targets],
        "diff": diff,
        "diff_bytes": diff_bytes,
        "diff_truncated": diff_truncated,
        "trace": trace,
        "signature": signature.to_dict(),
        "fingerprint": fingerprint,
        "command": attempt.command,
        "exit_code": attempt.exit_code,
        "signal": attempt.signal,
        "notes": attempt.notes,
        "redactions": dict(sorted(redactions.items())),
    }
    if attempt.recorded_at:
        record["ts"] = attempt.recorded_at
    return record


def is_record(rec: Mapping[str, Any]) -> bool:
    """Whether a journal line of the stream is a failed attempt (not an occurrence/tombstone)."""
    return rec.get("op") is None and isinstance(rec.get("id"), int) and bool(rec.get("fingerprint"))


@dataclass
class FailedAttempt:
    """A failed attempt read back from the journal, with its repeats folded in."""

    id: int
    first_seen: str
    last_seen: str
    occurrences: int
    targets: tuple[Target, ...]
    signature: Signature
    fingerprint: str
    diff: str = ""
    trace: str = ""
    command: str | None = None
    exit_code: int | None = None
    signal: int | None = None
    notes: str | None = None
    source: str = "api"
    record: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_record(cls, rec: Mapping[str, Any]) -> FailedAttempt:
        return cls(
            id=int(rec["id"]),
            first_seen=str(rec.get("ts", "")),
            last_seen=str(rec.get("ts", "")),
            occurrences=1,
            targets=tuple(
                (t["path"], t.get("qualname")) for t in rec.get("targets", ()) if t.get("path")
            ),
            signature=Signature.from_dict(rec.get("signature") or {}),
            fingerprint=str(rec.get("fingerprint", "")),
            diff=rec.get("diff") or "",
            trace=rec.get("trace") or "",
            command=rec.get("command"),
            exit_code=rec.get("exit_code"),
            signal=rec.get("signal"),
            notes=rec.get("notes"),
            source=rec.get("source", "api"),
            record=dict(rec),
        )

    def changed_lines(self) -> list[str]:
        """The diff's `-`/`+` lines, read hunk by hunk."""
        return [line for c in parse_diff(self.diff) for line in c.changed_text]


# ---------------------------------------------------------------- the journal stream


def load_failures(
    journal: Journal, *, on_warning: Callable[[str], None] | None = None
) -> list[FailedAttempt]:
    """Live failed attempts, oldest first, occurrences counted and forgotten ones left out."""
    got = journal.live(STREAM)
    if on_warning is not None:
        for w in got.warnings:
            on_warning(w)
    by_id: dict[int, FailedAttempt] = {}
    for rec in got.records:
        target = rec.get("target")
        if is_record(rec):
            by_id[rec["id"]] = FailedAttempt.from_record(rec)
        elif (
            rec.get("op") == "occurrence"
            and isinstance(target, int)
            and (f := by_id.get(target)) is not None
        ):
            f.occurrences += 1
            f.last_seen = str(rec.get("ts", f.last_seen))
    return list(by_id.values())


@contextlib.contextmanager
def _stream_lock(journal: Journal) -> Iterator[None]:
    """Serialises check-then-append on the stream (the journal locks each append alone)."""
    try:
        journal.root.mkdir(parents=True, exist_ok=True)
        lock = FileLock(journal.root / f"{STREAM}.lock")
        lock.acquire()
    except OSError as exc:
        raise JournalError(f"{journal.root}: cannot lock the journal ({exc.strerror})") from None
    try:
        yield
    finally:
        lock.release()


def append_failure(journal: Journal, record: Mapping[str, Any]) -> dict[str, Any]:
    """Append `record`, or an occurrence of the live record with the same fingerprint.

    The check and the append happen under one lock, so concurrent writers of the same attempt
    produce one record and occurrences, never two copies. Returns what was written.
    """
    if not record.get("fingerprint"):
        raise InputError("a failed attempt record needs a fingerprint (use build_failure_record)")
    with _stream_lock(journal):
        same = [f for f in load_failures(journal) if f.fingerprint == record["fingerprint"]]
        if not same:
            return journal.append(STREAM, dict(record))
        first = same[0]
        return journal.append(
            STREAM,
            {
                "op": "occurrence",
                "target": first.id,
                "fingerprint": first.fingerprint,
                "occurrence": first.occurrences + 1,
                "exit_code": record.get("exit_code"),
                "command": record.get("command"),
            },
        )


def written_id(written: Mapping[str, Any]) -> int:
    """The failed attempt an `append_failure` result is about (a new record or a repeat)."""
    return int(written["target"] if written.get("op") == "occurrence" else written["id"])


def forgotten_reverts(journal: Journal) -> list[str]:
    """The sha prefixes of the reverted commits muted by a tombstone."""
    return [
        r["target"][len(REVERT_PREFIX) :]
        for r in journal.read(STREAM).records
        if r.get("op") == "forget"
        and isinstance(r.get("target"), str)
        and r["target"].startswith(REVERT_PREFIX)
    ]


def forget_failure(journal: Journal, failure_id: int | str) -> dict[str, Any]:
    """Append a tombstone for a live failed attempt or a reverted commit (`revert:<sha>`, whose
    existence the caller checks); the record itself stays in the file."""
    fid = parse_failure_id(failure_id)
    with _stream_lock(journal):
        if isinstance(fid, str):
            sha = fid[len(REVERT_PREFIX) :]
            if any(sha.startswith(m) or m.startswith(sha) for m in forgotten_reverts(journal)):
                raise InputError(f"{fid} is already forgotten")
        elif not any(f.id == fid for f in load_failures(journal)):
            raise InputError(f"no failed attempt #{fid}", hint="`gitstrata graveyard` lists them")
        return journal.append(STREAM, {"op": "forget", "target": fid})
