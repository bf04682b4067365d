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
    diff_key        16 hex chars: the diff's content (`diff_key`), hunk offsets left out
    target_notes    why paths named in the diff were left out of `targets` (outside the
                    repository), when some were

A repeat of a live record (the same fingerprint *and* the same `diff_key`: the same change
failing the same way) appends `{"op": "occurrence", "target": id, ...}` with every field of the
repeat that differs from the first record (its notes, its output, its diff text), so nothing a
caller sent is dropped; any other attempt is a new record. Forgetting one appends a tombstone
`{"op": "forget", "target": id}`; nothing is ever rewritten, and `load_failures` folds both.
Every line is checked against its type on read (`check_line`): one that does not fit is skipped
and reported, never allowed to break a reader or a writer. The read side and the pipeline's
`documents` stage parse records only through `FailedAttempt.from_record`. A reverted commit is
a failed attempt too, without a journal record: its id is `revert:<sha10>` (`revert_id`); muting
it appends the same tombstone with that id as target (`"revert:<sha prefix>"`), which the read
side honours (`forgotten_reverts`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from .errors import InputError, JournalError
from .journal import (
    Journal,
    JournalRead,
    Skipped,
    check_base,
    live_records,
    parse_lines,
    parse_numbered,
    pick_lines,
)
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
    "StreamState",
    "Target",
    "append_failure",
    "changed_lines",
    "check_line",
    "diff_key",
    "forget_failure",
    "forgotten_reverts",
    "load_failures",
    "parse_failure_id",
    "read_failures",
    "read_stream",
    "relative_path",
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


def without_respacing(lines: list[str]) -> list[str]:
    """`lines` (a diff's `-`/`+` lines, marker first) without the removed and added lines that
    differ only in trailing whitespace: each added line takes the first unpaired removed line
    whose text is the same once trailing blanks are trimmed, and both are left out (a commit
    that trims trailing spaces, or turns CRLF into LF, changed nothing a reader needs to see).
    A line removed and added exactly as it was (moved) stays, and so does any change of
    indentation: either can change what the code does."""
    removed: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        if line[:1] == "-":
            removed.setdefault(line[1:].rstrip(), []).append(i)
    dropped: set[int] = set()
    for i, line in enumerate(lines):
        if line[:1] != "+":
            continue
        pending = removed.get(line[1:].rstrip())
        if not pending:
            continue
        for k, j in enumerate(pending):
            if lines[j][1:] != line[1:]:
                dropped.update((i, pending.pop(k)))
                break
    return [line for i, line in enumerate(lines) if i not in dropped] if dropped else lines


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


def relative_path(path: str) -> str | None:
    """`path` as a repository-relative POSIX path, or None when it is not one: absolute,
    climbing out with `..`, empty, or holding a NUL or a control character. Lexical only; the
    serving side also resolves symlinks when it uses a path (`serve.paths`). (The parts are
    `PurePosixPath`'s: empty and `.` parts dropped; split by hand, as every read of the journal
    does it for every target.)"""
    if not isinstance(path, str) or len(path) > 4096:
        return None
    raw = path.replace("\\", "/").strip()
    if not raw or raw[0] == "/" or _DRIVE.match(raw) or _CONTROL.search(raw):
        return None
    parts = [p for p in raw.split("/") if p and p != "."]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


_DRIVE = re.compile(r"[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


_DIFF_NOISE = re.compile(r"^(?:@@ |index [0-9a-f]+\.\.[0-9a-f]+|similarity index |dissimilarity )")


def diff_key(diff: str) -> str:
    """16 hex chars naming the content of an attempted diff: every line but its hunk headers,
    context lines and blob ids, whitespace runs collapsed. Two diffs of the same change made at
    other line offsets share it; two different changes never do, with or without file headers
    (a diff of hunks alone is compared by its changed lines)."""
    kept = []
    for line in diff.splitlines():
        if not line.strip() or line[:1] == " " or _DIFF_NOISE.match(line):
            continue
        kept.append(" ".join(line.split()))
    return hashlib.sha1("\n".join(kept).encode("utf-8", "surrogatepass")).hexdigest()[:16]


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
        return cls(*(tuple(data.get(name) or ()) for name in _SIGNATURE_FIELDS))

    def text(self) -> str:
        """The signature as text for term matching (locations reduced to their files)."""
        files = [loc.rsplit(":", 1)[0] for loc in self.locations]
        return "\n".join([*self.errors, *self.failing, *self.exceptions, *self.codes, *files])

    def __bool__(self) -> bool:
        return bool(self.errors or self.failing or self.exceptions or self.codes)


_SIGNATURE_FIELDS = tuple(f.name for f in fields(Signature))


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
    key: str | None = None,
    target_notes: list[str] | None = None,
) -> dict[str, Any]:
    """The journal record of `attempt` from its prepared (redacted, bounded) parts; the journal
    adds `id` and `ts` (`ts` is the attempt's `recorded_at` when it has one). `key`: the
    `diff_key` of the whole diff (by default of `diff`, which may be an excerpt)."""
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
        "diff_key": key or diff_key(diff),
    }
    if target_notes:
        record["target_notes"] = list(target_notes)
    if attempt.recorded_at:
        record["ts"] = attempt.recorded_at
    return record


# ---------------------------------------------------------------- checking a line

_TEXT, _INT, _BOOL, _DICT, _LIST, _NONE = str, int, bool, dict, list, type(None)
# the fields of a record (and of an occurrence, which repeats those that differ), by type
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "kind": (_TEXT,),
    "source": (_TEXT,),
    "targets": (_LIST,),
    "diff": (_TEXT,),
    "diff_bytes": (_INT,),
    "diff_truncated": (_BOOL,),
    "trace": (_TEXT,),
    "signature": (_DICT,),
    "fingerprint": (_TEXT,),
    "diff_key": (_TEXT,),
    "command": (_TEXT, _NONE),
    "exit_code": (_INT, _NONE),
    "signal": (_INT, _NONE),
    "notes": (_TEXT, _NONE),
    "redactions": (_DICT,),
    "target_notes": (_LIST,),
    "occurrence": (_INT,),
}
_TYPE_NAMES = {_TEXT: "text", _INT: "an integer", _BOOL: "true or false", _DICT: "an object",
               _LIST: "a list", _NONE: "null"}  # fmt: skip


def _fits(value: Any, types: tuple[type, ...]) -> bool:
    # bool is an int to Python, not to a reader of `exit_code`
    return any(
        value is None
        if t is _NONE
        else isinstance(value, t) and (t is _BOOL or type(value) is not bool)
        for t in types
    )


# each field's types as a set: a value of exactly one of them (all JSON gives) fits at once
_FIELD_EXACT = tuple((name, frozenset(types), types) for name, types in _FIELD_TYPES.items())
_ABSENT = object()


def _check_fields(rec: Mapping[str, Any]) -> str | None:
    for name, exact, types in _FIELD_EXACT:
        value = rec.get(name, _ABSENT)
        if value is _ABSENT or type(value) in exact:
            continue
        if not _fits(value, types):
            return f"{name} is not {' or '.join(_TYPE_NAMES[t] for t in types)}"
    targets = rec.get("targets") or []
    for t in targets:
        if not (
            isinstance(t, dict)
            and isinstance(t.get("path"), str)
            and isinstance(t.get("qualname"), str | None)
        ):
            return "targets holds an entry that is not {path, qualname}"
    for name, values in (rec.get("signature") or {}).items():
        if not (isinstance(values, list) and all(isinstance(v, str) for v in values)):
            return f"signature.{name} is not a list of text"
    for name, count in (rec.get("redactions") or {}).items():
        if type(count) is not int:
            return f"redactions.{name} is not an integer"
    if not all(isinstance(n, str) for n in rec.get("target_notes") or []):
        return "target_notes is not a list of text"
    return None


def _op_text(op: Any) -> str:
    return json.dumps(op, ensure_ascii=True)[:40]


def check_line(rec: Mapping[str, Any]) -> str | None:
    """Why a line of the `failures` stream does not fit its record type (None when it does):
    a failed attempt, an occurrence of one, or a tombstone. Required fields and their types;
    optional ones are checked when present. (`id` and `ts` are the journal's own check.)"""
    base = check_base(rec)
    if base is not None:
        return base
    op = rec.get("op")
    if op is None:
        if not isinstance(rec.get("fingerprint"), str) or not rec["fingerprint"]:
            return "a failed attempt without a fingerprint"
        if "targets" not in rec:
            return "a failed attempt without targets"
        if rec.get("kind", KIND) != KIND:
            return f"kind is {_op_text(rec.get('kind'))}, not {KIND}"
        return _check_fields(rec)
    if op == "occurrence":
        if type(rec.get("target")) is not int:
            return "an occurrence without the id of its failed attempt"
        return _check_fields(rec)
    if op == "forget":
        target = rec.get("target")
        if type(target) is int or (
            isinstance(target, str)
            and target.startswith(REVERT_PREFIX)
            and _REVERT_ID.fullmatch(target) is not None
        ):
            return None
        return "a tombstone without a failed attempt id or revert:<sha>"
    return f"unknown op {_op_text(op)}"


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
    # the occurrence lines, oldest first: each repeat's own notes, output and diff when they differ
    repeats: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @classmethod
    def from_record(cls, rec: Mapping[str, Any]) -> FailedAttempt:
        """From a line that passed `check_line` (a target path that is not inside the repository
        is left out, whatever wrote it)."""
        targets: dict[Target, None] = {}
        for t in rec.get("targets") or ():
            path = relative_path(t.get("path") or "")
            if path is not None:
                targets[(path, t.get("qualname"))] = None
        return cls(
            id=int(rec["id"]),
            first_seen=str(rec.get("ts", "")),
            last_seen=str(rec.get("ts", "")),
            occurrences=1,
            targets=tuple(targets),
            signature=Signature.from_dict(rec.get("signature") or {}),
            fingerprint=str(rec.get("fingerprint", "")),
            diff=rec.get("diff") or "",
            trace=rec.get("trace") or "",
            command=rec.get("command"),
            exit_code=rec.get("exit_code"),
            signal=rec.get("signal"),
            notes=rec.get("notes"),
            source=rec.get("source") or "api",
            record=dict(rec),
        )

    def add_repeat(self, rec: Mapping[str, Any]) -> None:
        self.occurrences += 1
        self.last_seen = str(rec.get("ts", self.last_seen))
        self.repeats.append(dict(rec))

    @property
    def key(self) -> str | None:
        """The `diff_key` the record was written with, or of its diff when it is whole (None
        for an older record whose diff was cut: its content is not known)."""
        stored = self.record.get("diff_key")
        if isinstance(stored, str):
            return stored
        return None if self.record.get("diff_truncated") else diff_key(self.diff)

    def all_notes(self) -> list[str]:
        """The notes of the first record and of every repeat, each once, in order."""
        out: dict[str, None] = {}
        for n in [self.notes, *(r.get("notes") for r in self.repeats)]:
            if isinstance(n, str) and n.strip():
                out[n] = None
        return list(out)

    def changed_lines(self) -> list[str]:
        """The diff's `-`/`+` lines, read hunk by hunk."""
        return [line for c in parse_diff(self.diff) for line in c.changed_text]


# ---------------------------------------------------------------- the journal stream


def _fold(
    got: JournalRead, make: Callable[[dict[str, Any]], FailedAttempt] = FailedAttempt.from_record
) -> list[FailedAttempt]:
    by_id: dict[int, FailedAttempt] = {}
    for rec in got.records:
        if rec.get("op") is None:
            by_id[rec["id"]] = make(rec)
        elif rec.get("op") == "occurrence" and (f := by_id.get(rec["target"])) is not None:
            f.add_repeat(rec)
    return list(by_id.values())


def read_failures(journal: Journal) -> tuple[list[FailedAttempt], list[Skipped]]:
    """Live failed attempts, oldest first (occurrences counted, forgotten ones left out), and
    the lines of the stream that were skipped because they do not fit."""
    got = journal.live(STREAM, check_line)
    return _fold(got), got.skipped


def load_failures(
    journal: Journal, *, on_warning: Callable[[str], None] | None = None
) -> list[FailedAttempt]:
    """Live failed attempts, oldest first, occurrences counted and forgotten ones left out."""
    failures, skipped = read_failures(journal)
    if on_warning is not None:
        for s in skipped:
            on_warning(str(s))
    return failures


@contextlib.contextmanager
def _stream_lock(journal: Journal) -> Iterator[None]:
    """Serialises check-then-append on the stream (the journal locks each append alone)."""
    # a bare flock (no pid written into the file, unlike the index lock): it is taken per
    # append, and rewriting the file each time would cost as much as the append's fsync
    try:
        journal.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(journal.root / f"{STREAM}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise JournalError(f"{journal.root}: cannot lock the journal ({exc.strerror})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


def _lines_about(journal: Journal, fingerprint: str) -> JournalRead:
    """The stream's lines that can decide whether an attempt with `fingerprint` was recorded:
    those holding that fingerprint (its records and occurrences) and the tombstones. Found by
    their bytes, so only those few lines are parsed, each checked like any read checks it."""
    needles = (
        b'"fingerprint":' + json.dumps(fingerprint, ensure_ascii=False).encode("utf-8"),
        b'"op":"forget"',
    )
    picked = pick_lines(journal.read_bytes(STREAM), needles)
    got = parse_numbered(picked, journal.path(STREAM).name, check_line)
    forgotten = {r.get("target") for r in got.records if r.get("op") == "forget"}
    got.records = [
        r
        for r in got.records
        if r.get("op") != "forget"
        and r["id"] not in forgotten
        and r.get("fingerprint") == fingerprint
    ]
    return got


def _repeat(first: FailedAttempt, record: Mapping[str, Any]) -> dict[str, Any]:
    """The occurrence line of `record`, a repeat of `first`: everything it says that the first
    record does not (its notes, its own output or diff text, its time when it was imported)."""
    differs = {
        k: v
        for k, v in record.items()
        if k not in ("id", "kind", "op", "target") and first.record.get(k) != v
    }
    return {
        **differs,
        "op": "occurrence",
        "target": first.id,
        "fingerprint": first.fingerprint,
        "occurrence": first.occurrences + 1,
        "exit_code": record.get("exit_code"),
        "command": record.get("command"),
    }


def append_failure(journal: Journal, record: Mapping[str, Any]) -> dict[str, Any]:
    """Append `record`, or an occurrence of the live record of the same attempt.

    The same attempt: the same fingerprint (same change, failing the same way, same command)
    and the same `diff_key` (the diff's content, not only where its hunks are). The check and
    the append happen under one lock, so concurrent writers of the same attempt produce one
    record and occurrences, never two copies. Returns what was written.
    """
    return record_failure_line(journal, record)[0]


def record_failure_line(
    journal: Journal, record: Mapping[str, Any]
) -> tuple[dict[str, Any], FailedAttempt]:
    """`append_failure`, also returning the failed attempt as it now reads (occurrences
    counted), without reading the rest of the stream."""
    fp = record.get("fingerprint")
    if not isinstance(fp, str) or not fp:
        raise InputError("a failed attempt record needs a fingerprint (use build_failure_record)")
    record = dict(record)
    record.setdefault("diff_key", diff_key(record.get("diff") or ""))
    reason = check_line(
        {"id": 1, "ts": "", **{k: v for k, v in record.items() if k not in ("id", "ts")}}
    )
    if reason is not None:
        raise InputError(f"not a failed attempt record: {reason}")
    with _stream_lock(journal):
        known = _fold(_lines_about(journal, fp))
        same = next((f for f in known if f.key == record["diff_key"]), None)
        if same is None:
            written = journal.append(STREAM, record)
            return written, FailedAttempt.from_record(written)
        written = journal.append(STREAM, _repeat(same, record))
        same.add_repeat(written)
        return written, same


def written_id(written: Mapping[str, Any]) -> int:
    """The failed attempt an `append_failure` result is about (a new record or a repeat)."""
    return int(written["target"] if written.get("op") == "occurrence" else written["id"])


def forgotten_reverts(journal: Journal) -> list[str]:
    """The sha prefixes of the reverted commits muted by a tombstone."""
    return _forgotten_reverts(journal.read(STREAM, check_line).records)


def _forgotten_reverts(records: list[dict[str, Any]]) -> list[str]:
    return [
        r["target"][len(REVERT_PREFIX) :]
        for r in records
        if r.get("op") == "forget"
        and isinstance(r.get("target"), str)
        and r["target"].startswith(REVERT_PREFIX)
    ]


@dataclass
class StreamState:
    """What `read_stream` keeps of the stream between reads: the records of its lines before
    the last one, and the failed attempt each of those records makes. A read whose bytes start
    with the same lines checks and parses only the lines after them (the journal is only ever
    appended to; any other change reads it whole again). The last line is always parsed anew:
    how it is reported when it does not parse depends on whether a line follows it."""

    prefix: bytes = b""  # the stream's bytes up to the start of its last line
    lines: int = 0  # how many lines `prefix` holds
    read: JournalRead = field(default_factory=JournalRead)
    seen: set[int] = field(default_factory=set)  # the ids of `read`'s records
    # record id -> (the record, the attempt `from_record` made of it), for `prefix`'s records
    attempts: dict[int, tuple[dict[str, Any], FailedAttempt]] = field(default_factory=dict)

    def parse(self, data: bytes, name: str) -> JournalRead:
        """`parse_lines(data, name, check_line)`, going on from the lines already read."""
        if not data.startswith(self.prefix):
            self.prefix, self.lines, self.read, self.seen = b"", 0, JournalRead(), set()
            self.attempts.clear()
        if data.endswith(b"\n"):
            cut = data.rfind(b"\n", 0, len(data) - 1) + 1
        else:
            cut = data.rfind(b"\n") + 1
        if cut > len(self.prefix):
            chunk = data[len(self.prefix) : cut].split(b"\n")[:-1]
            more = parse_numbered(
                ((self.lines + n, raw, False) for n, raw in enumerate(chunk, 1)),
                name,
                check_line,
                self.seen,
            )
            self.read.records.extend(more.records)
            self.read.skipped.extend(more.skipped)
            self.prefix, self.lines = data[:cut], self.lines + len(chunk)
        end = parse_lines(data[cut:], name, check_line, after=self.lines, seen=set(self.seen))
        return JournalRead([*self.read.records, *end.records], [*self.read.skipped, *end.skipped])

    def attempt(self, rec: dict[str, Any]) -> FailedAttempt:
        """`FailedAttempt.from_record(rec)`, made once per record read: a copy of its own."""
        got = self.attempts.get(rec["id"])
        if got is None or got[0] is not rec:
            got = (rec, FailedAttempt.from_record(rec))
            self.attempts[rec["id"]] = got
        out = object.__new__(FailedAttempt)  # `copy.copy`, without its generic protocol
        out.__dict__.update(got[1].__dict__)
        out.repeats = []  # `_fold` adds this read's repeats
        return out


def read_stream(
    journal: Journal, kept: StreamState | None = None
) -> tuple[list[FailedAttempt], list[Skipped], list[str]]:
    """`read_failures` and `forgotten_reverts` from one read of the stream: (live failed
    attempts, skipped lines, sha prefixes of the muted reverts). `kept`: what the reads before
    this one kept (see `StreamState`), for a reader that reads the stream again and again."""
    if kept is None:
        got = journal.read(STREAM, check_line)
        return _fold(live_records(got)), got.skipped, _forgotten_reverts(got.records)
    got = kept.parse(journal.read_bytes(STREAM), journal.path(STREAM).name)
    return _fold(live_records(got), kept.attempt), got.skipped, _forgotten_reverts(got.records)


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
