"""Failed attempts: signatures, fingerprints, changed-line targets and the `failures` stream.

A failed attempt is one JSON record in the journal stream `failures`. Invariants:

- Everything stored passed through `store.redact` first (diff, output, notes, command).
- Stored text is bounded: the diff keeps its head (`max_diff_bytes`), the output its tail
  (`max_trace_bytes`), where errors are printed last.
- Targets come from the *changed* lines of the diff (removed lines at their old-side number, an
  insertion at the old-side position it lands on), never from context lines, mapped onto the
  HEAD `symbols` rows; the diff is against HEAD, so old-side numbers are HEAD numbers. A file
  where no named symbol was touched becomes a file-level target (`qualname` None).
- The fingerprint ignores what changes from run to run of the same attempt: addresses,
  durations, timestamps, UUIDs, temp paths, line and column numbers, hunk offsets, whitespace.
- A repeat (same fingerprint, original not forgotten) appends `{"op": "occurrence", "target":
  id}`; nothing is rewritten, and `load_failures` folds occurrences and tombstones.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from ..store.config import GraveyardConfig
from ..store.errors import InputError, JournalError
from ..store.ids import MODULE_SYMBOL
from ..store.journal import Journal
from ..store.lock import FileLock
from ..store.redact import redact_counts
from .signatures import Signature, extract_signature

STREAM = "failures"

__all__ = [
    "STREAM",
    "Failure",
    "FileChange",
    "Signature",
    "build_failure_record",
    "extract_signature",
    "fingerprint",
    "forget_failure",
    "load_failures",
    "map_changed_lines",
    "parse_diff",
    "record_failure",
]

# ---------------------------------------------------------------- fingerprint

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
    for change in parse_diff(diff):
        parts.append(f"file {change.path}")
        parts.extend(normalise_volatile(line) for line in change.changed_text if line.strip())
    parts.append("sig")
    for name in ("errors", "failing", "exceptions", "codes"):
        # sorted: parallel test runners report the same failures in any order
        parts.extend(sorted({f"{name}:{normalise_volatile(v)}" for v in getattr(signature, name)}))
    # a location's file identifies the failure; its line moves with every unrelated edit
    parts.extend(
        sorted({"loc:" + normalise_volatile(loc.rsplit(":", 1)[0]) for loc in signature.locations})
    )
    return hashlib.sha1("\n".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:16]


# ---------------------------------------------------------------- unified diffs

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


@dataclass
class FileChange:
    """One file of a unified diff, in old-side (HEAD) line numbers."""

    old_path: str | None
    new_path: str | None
    removed: list[int] = field(default_factory=list)  # old line numbers of `-` lines
    inserted_after: list[int] = field(default_factory=list)  # `+` lines land after this old line
    changed_text: list[str] = field(default_factory=list)  # the `-`/`+` lines, marker kept
    binary: bool = False
    hunks: int = 0

    @property
    def path(self) -> str:
        return self.old_path or self.new_path or ""


def _unquote(path: str) -> str:
    """git's C-style quoting of unusual paths (`"a/na\\303\\257ve.py"`)."""
    if not (len(path) >= 2 and path[0] == path[-1] == '"'):
        return path
    body, out, i = path[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 3 < len(body) + 1:
                out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            out.extend(_ESCAPES.get(nxt, nxt).encode())
            i += 2
            continue
        out.extend(c.encode("utf-8", "surrogateescape"))
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _side(raw: str, prefix: str) -> str | None:
    raw = raw.split("\t", 1)[0].rstrip() if not raw.startswith('"') else raw.rstrip()
    path = _unquote(raw)
    if path == "/dev/null":
        return None
    return path[len(prefix) :] if path.startswith(prefix) else path


def _git_header_paths(rest: str) -> tuple[str | None, str | None]:
    if rest.startswith('"'):
        end = rest.index('"', 1)
        while rest[end - 1] == "\\":
            end = rest.index('"', end + 1)
        return _side(rest[: end + 1], "a/"), _side(rest[end + 1 :].strip(), "b/")
    # unquoted: "a/X b/X"; when both sides are equal the split is unambiguous
    half = (len(rest) - 1) // 2
    if rest[half] == " " and rest[:half][2:] == rest[half + 1 :][2:]:
        return _side(rest[:half], "a/"), _side(rest[half + 1 :], "b/")
    a, _, b = rest.partition(" b/")
    return _side(a, "a/"), _side("b/" + b, "b/")


def parse_diff(diff_text: str) -> list[FileChange]:
    """The files of a unified diff (git's or plain `diff -u`), hunks followed by their counts."""
    files: list[FileChange] = []
    cur: FileChange | None = None
    old_no = old_left = new_left = 0
    for line in diff_text.splitlines():
        if old_left > 0 or new_left > 0:
            mark = line[:1]
            if mark in (" ", "") and old_left > 0 and new_left > 0:
                old_no, old_left, new_left = old_no + 1, old_left - 1, new_left - 1
                continue
            if mark == "-" and old_left > 0 and cur is not None:
                cur.removed.append(old_no)
                cur.changed_text.append(line)
                old_no, old_left = old_no + 1, old_left - 1
                continue
            if mark == "+" and new_left > 0 and cur is not None:
                cur.inserted_after.append(old_no - 1)
                cur.changed_text.append(line)
                new_left -= 1
                continue
            if mark == "\\":
                continue
            old_left = new_left = 0  # a short hunk: read the line as a header
        if line.startswith("diff --git "):
            old, new = _git_header_paths(line[len("diff --git ") :])
            cur = FileChange(old, new)
            files.append(cur)
        elif line.startswith("--- "):
            if cur is None or cur.hunks:
                cur = FileChange(None, None)
                files.append(cur)
            cur.old_path = _side(line[4:], "a/")
        elif line.startswith("+++ ") and cur is not None:
            cur.new_path = _side(line[4:], "b/")
        elif line.startswith("new file mode") and cur is not None:
            cur.old_path = None
        elif line.startswith("deleted file mode") and cur is not None:
            cur.new_path = None
        elif line.startswith("rename from ") and cur is not None:
            cur.old_path = _unquote(line[len("rename from ") :])
        elif line.startswith(("Binary files ", "GIT binary patch")) and cur is not None:
            cur.binary = True
        elif (m := _HUNK.match(line)) is not None and cur is not None:
            cur.hunks += 1
            start = int(m.group(1))
            old_left = int(m.group(2)) if m.group(2) is not None else 1
            new_left = int(m.group(4)) if m.group(4) is not None else 1
            old_no = start if old_left > 0 else start + 1
    return [f for f in files if f.path]


# ---------------------------------------------------------------- changed lines -> symbols


def _rows(symbols_rows: Any, paths: set[str]) -> list[Mapping[str, Any]]:
    if not paths:
        return []
    if hasattr(symbols_rows, "filter") and hasattr(symbols_rows, "to_pylist"):
        import pyarrow as pa
        import pyarrow.compute as pc

        table = symbols_rows.filter(
            pc.is_in(symbols_rows["path"], pa.array(sorted(paths), pa.string()))
        )
        return table.select(["path", "qualname", "start_line", "end_line"]).to_pylist()
    return [r for r in (symbols_rows or ()) if r["path"] in paths]


def _innermost(spans: list[tuple[int, int, str]], *lines: int) -> str | None:
    best: tuple[int, int, str] | None = None
    for start, end, qualname in spans:
        if all(start <= n <= end for n in lines) and (
            best is None or end - start < best[1] - best[0]
        ):
            best = (start, end, qualname)
    return best[2] if best else None


def map_changed_lines(diff_text: str, symbols_rows: Any) -> list[tuple[str, str | None]]:
    """(path, qualname) of every HEAD symbol whose lines the diff changed, in diff order.

    `symbols_rows`: mappings (or an Arrow table) with path, qualname, start_line, end_line.
    An insertion belongs to the innermost symbol spanning both of its neighbour lines. A file
    where no named symbol was changed (no symbols, a new or binary file, only module-level
    lines) yields one file-level target `(path, None)`.
    """
    changes = parse_diff(diff_text)
    by_path: dict[str, list[tuple[int, int, str]]] = {}
    for row in _rows(symbols_rows, {c.path for c in changes}):
        if row["qualname"] != MODULE_SYMBOL:
            by_path.setdefault(row["path"], []).append(
                (int(row["start_line"]), int(row["end_line"]), row["qualname"])
            )
    out: dict[tuple[str, str | None], None] = {}
    for change in changes:
        spans = by_path.get(change.path, []) if change.old_path else []
        hits: dict[str, None] = {}
        if not change.binary:
            for n in change.removed:
                if (q := _innermost(spans, n)) is not None:
                    hits[q] = None
            for k in change.inserted_after:
                if (q := _innermost(spans, k, k + 1)) is not None:
                    hits[q] = None
        if hits:
            out.update({(change.path, q): None for q in hits})
        else:
            out[(change.path, None)] = None
    return list(out)


# ---------------------------------------------------------------- records


def _clean_path(path: str) -> str:
    p = path.replace("\\", "/").strip()
    while p.startswith("./"):
        p = p[2:]
    if not p or p.startswith("/") or ".." in PurePosixPath(p).parts:
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


def build_failure_record(
    file_path: str | None,
    attempted_diff: str,
    error_trace: str,
    notes: str | None = None,
    symbol_name: str | None = None,
    command: str | None = None,
    exit_code: int | None = None,
    symbols_rows: Any = (),
    *,
    cfg: GraveyardConfig | None = None,
    source: str = "api",
    signal: int | None = None,
    repo_root: str | None = None,
) -> dict[str, Any]:
    """The journal record of one failed attempt (without `id`/`ts`, which the journal adds)."""
    cfg = cfg or GraveyardConfig()
    counts: dict[str, int] = {}

    def scrub(text: str | None) -> str | None:
        if text is None:
            return None
        out, found = redact_counts(text)
        for kind, n in found.items():
            counts[kind] = counts.get(kind, 0) + n
        return out

    diff = scrub(attempted_diff or "") or ""
    trace = scrub(error_trace or "") or ""
    notes, command = scrub(notes), scrub(command)
    signature = extract_signature(trace, root=repo_root)
    targets: dict[tuple[str, str | None], None] = {}
    if file_path:
        targets[(_clean_path(file_path), symbol_name or None)] = None
    for path, qualname in map_changed_lines(diff, symbols_rows):
        if qualname is None and any(p == path for p, _ in targets):
            continue  # the caller named this file already
        targets[(path, qualname)] = None
    excerpt, truncated = _head_bytes(diff, cfg.max_diff_bytes)
    return {
        "kind": "failed_attempt",
        "source": source,
        "targets": [{"path": p, "qualname": q} for p, q in targets],
        "diff": excerpt,
        "diff_bytes": len(diff.encode("utf-8", "surrogateescape")),
        "diff_truncated": truncated,
        "trace": _tail_bytes(trace, cfg.max_trace_bytes),
        "signature": signature.to_dict(),
        "fingerprint": fingerprint(diff, signature, command),
        "command": command,
        "exit_code": exit_code,
        "signal": signal,
        "notes": notes,
        "redactions": dict(sorted(counts.items())),
    }


@dataclass
class Failure:
    """A failed attempt with its repeats folded in."""

    id: int
    first_seen: str
    last_seen: str
    occurrences: int
    targets: tuple[tuple[str, str | None], ...]
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
    def from_record(cls, rec: Mapping[str, Any]) -> Failure:
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
        return [line for c in parse_diff(self.diff) for line in c.changed_text]

    def match_text(self) -> str:
        """What a query is matched against: notes, signature, command, targets, changed lines."""
        parts = [self.notes or "", self.signature.text(), self.command or ""]
        parts += [f"{p} {q or ''}" for p, q in self.targets]
        parts += [line[1:] for line in self.changed_lines()]
        return "\n".join(p for p in parts if p)


def load_failures(
    journal: Journal, *, on_warning: Callable[[str], None] | None = None
) -> list[Failure]:
    """Live failed attempts, oldest first, occurrences counted and forgotten ones left out."""
    got = journal.live(STREAM)
    if on_warning is not None:
        for w in got.warnings:
            on_warning(w)
    by_id: dict[int, Failure] = {}
    for rec in got.records:
        op = rec.get("op")
        if op is None and isinstance(rec.get("id"), int) and rec.get("fingerprint"):
            by_id[rec["id"]] = Failure.from_record(rec)
        elif op == "occurrence" and (f := by_id.get(rec.get("target"))) is not None:
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


def record_failure(journal: Journal, record: Mapping[str, Any]) -> dict[str, Any]:
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


def forget_failure(journal: Journal, failure_id: int) -> dict[str, Any]:
    """Append a tombstone for a live failed attempt; the record itself stays in the file."""
    with _stream_lock(journal):
        if not any(f.id == failure_id for f in load_failures(journal)):
            raise InputError(
                f"no failed attempt #{failure_id}", hint="`gitstrata graveyard` lists them"
            )
        return journal.append(STREAM, {"op": "forget", "target": failure_id})


def find_failures(failures: Iterable[Failure], path: str) -> list[Failure]:
    """The failed attempts with a target in `path`."""
    return [f for f in failures if any(p == path for p, _ in f.targets)]
