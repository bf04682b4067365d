"""Memories: the record format of the journal's `memories` stream, its fold, and the decay math.

A memory is a decision, pitfall, principle, preference, fact or session note with an importance
(0..1), a status, tags, anchors (`path` or `path::Symbol`, relative to the repository) and a
source. Every change is one appended record; the current state of a memory is the fold of its
records in order. Invariants:

- `validate_memory(record)` accepts exactly the records this module writes (one per `op`), so a
  journal validator can call it per record; `fold` skips a record it would reject and says so.
- Nothing is rewritten: an update, a recall, a supersede, a merge and a forget are new records.
- Time comes from the records (`ts`, or `at` for a recall), never from the clock, so the fold is
  a pure function of the journal and tests control time by the timestamps they write.
- Strength follows an Ebbinghaus curve: `importance * exp(-lambda * days) * (1 + 0.2 * recalls)`
  with `lambda = base(kind) * (1 - 0.8 * importance)`, days since the memory was last used;
  pitfalls and session notes fade fastest, decisions and principles slowest.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import Any

from .errors import InputError

STREAM = "memories"
KINDS = ("decision", "pitfall", "principle", "preference", "fact", "session")
STATUSES = ("active", "rejected", "superseded", "archived")
SOURCES = ("agent", "adr", "git", "user")
OPS = ("add", "update", "recall", "reinforce", "supersede", "forget", "maintain")

MAX_TEXT = 4000  # characters of a memory's text
MAX_TAGS = 16
MAX_TAG = 48
MAX_ANCHORS = 16
MAX_LINKS = 5

# ranking weights (a decision or a pitfall matters more than a session note)
KIND_WEIGHT = {
    "decision": 1.25,
    "pitfall": 1.25,
    "principle": 1.2,
    "preference": 1.1,
    "fact": 1.0,
    "session": 0.8,
}
STATUS_WEIGHT = {"active": 1.0, "rejected": 0.85, "superseded": 0.6, "archived": 0.4}
# per day, before the importance discount: failures fade fastest, strategies slowest
BASE_LAMBDA = {
    "pitfall": 0.35,
    "session": 0.35,
    "fact": 0.2,
    "preference": 0.15,
    "principle": 0.1,
    "decision": 0.1,
}

_MID = re.compile(r"^[a-z][a-z0-9-]{2,63}$")
_TAG = re.compile(r"^[\w.:/-]{1,48}$")
_TS = "%Y-%m-%dT%H:%M:%SZ"


class MemoryInputError(InputError):
    """A memory or a memory record is not valid."""


def fmt_time(when: datetime) -> str:
    return when.astimezone(UTC).strftime(_TS)


def parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return None


@dataclass(frozen=True)
class Anchor:
    """Code a memory is about. `hash`: the symbol's code (or the file's blob) when the memory
    was written, `head`: the indexed commit it was read from; both None without an index."""

    path: str
    symbol: str | None = None
    hash: str | None = None
    head: str | None = None

    @property
    def label(self) -> str:
        return f"{self.path}::{self.symbol}" if self.symbol else self.path

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path}
        if self.symbol:
            out["symbol"] = self.symbol
        if self.hash:
            out["hash"] = self.hash
        if self.head:
            out["head"] = self.head
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Anchor:
        return cls(
            path=str(data["path"]),
            symbol=data.get("symbol") or None,
            hash=data.get("hash") or None,
            head=data.get("head") or None,
        )


def parse_anchor(text: str) -> Anchor:
    """`path` or `path::Symbol`, relative to the repository (no `..`, not absolute)."""
    raw = str(text).strip().replace("\\", "/")
    path, _, symbol = raw.partition("::")
    path = path.strip()
    while path.startswith("./"):
        path = path[2:]
    if not path or path.startswith("/") or ".." in PurePosixPath(path).parts:
        raise MemoryInputError(
            f"anchor {text!r} is outside the repository",
            hint="anchor to a path relative to the repository root, e.g. src/pay.py::charge",
        )
    return Anchor(path=path.rstrip("/"), symbol=symbol.strip() or None)


@dataclass
class Memory:
    id: str
    kind: str
    text: str
    importance: float = 0.5
    status: str = "active"
    tags: tuple[str, ...] = ()
    anchors: tuple[Anchor, ...] = ()
    source: str = "agent"
    shared: bool = False  # in the team file `memories.jsonl`, not only in this journal
    origin: str | None = None  # an ADR's path, a commit's sha
    created: str = ""
    updated: str = ""
    last_recalled: str | None = None
    recalls: int = 0
    supersedes: tuple[str, ...] = ()
    superseded_by: str | None = None
    links: dict[str, float] = field(default_factory=dict)  # neighbour id -> weight
    forgotten: str | None = None  # why: "forgotten", "pruned", "merged into ..."

    @property
    def last_used(self) -> str:
        return max(
            x for x in (self.created, self.updated, self.last_recalled or "") if x is not None
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "text": self.text,
            "importance": self.importance,
            "status": self.status,
            "tags": list(self.tags),
            "anchors": [a.to_dict() for a in self.anchors],
            "source": self.source,
            "shared": self.shared,
            "origin": self.origin,
            "created": self.created,
            "updated": self.updated,
            "last_recalled": self.last_recalled,
            "recalls": self.recalls,
            "supersedes": list(self.supersedes),
            "superseded_by": self.superseded_by,
            "links": dict(sorted(self.links.items())),
        }


# ---------------------------------------------------------------- validation


def check_text(text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise MemoryInputError(
            "the memory's text is empty", hint="say what to remember in a sentence"
        )
    text = text.strip()
    if len(text) > MAX_TEXT:
        raise MemoryInputError(
            f"the memory's text has {len(text)} characters, over the {MAX_TEXT} characters limit",
            hint="keep one memory to one decision or fact; split longer notes",
        )
    return text


def _choice(value: Any, allowed: tuple[str, ...], what: str) -> str:
    v = str(value).strip().lower()
    if v not in allowed:
        raise MemoryInputError(
            f"unknown memory {what} {value!r}", hint=f"use one of {', '.join(allowed)}"
        )
    return v


def check_kind(kind: Any) -> str:
    return _choice(kind, KINDS, "kind")


def check_status(status: Any) -> str:
    return _choice(status, STATUSES, "status")


def check_source(source: Any) -> str:
    return _choice(source, SOURCES, "source")


def check_importance(value: Any) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = math.nan
    if not 0.0 <= x <= 1.0:
        raise MemoryInputError(
            f"importance {value!r} is not a number from 0 to 1",
            hint="0.2 minor, 0.5 normal, 0.8 important, 1 critical",
        )
    return round(x, 3)


def check_tags(tags: Any) -> tuple[str, ...]:
    if tags is None:
        return ()
    if isinstance(tags, str):
        tags = [t for t in re.split(r"[,\s]+", tags) if t]
    if not isinstance(tags, list | tuple):
        raise MemoryInputError("tags must be a list of words")
    out = []
    for t in tags:
        t = str(t).strip().lower()
        if not _TAG.match(t):
            raise MemoryInputError(
                f"tag {t!r} is not valid",
                hint=f"tags are words of letters, digits and . _ : / - (at most {MAX_TAG})",
            )
        out.append(t)
    if len(out) > MAX_TAGS:
        raise MemoryInputError(f"{len(out)} tags, more than {MAX_TAGS}")
    return tuple(sorted(set(out)))


def check_mid(mid: Any) -> str:
    m = str(mid).strip()
    if not _MID.match(m):
        raise MemoryInputError(f"invalid memory id {mid!r}", hint="ids look like m3f9c2a1b7d")
    return m


def validate_memory(record: dict[str, Any]) -> None:
    """Raise `MemoryInputError` unless `record` is a well-formed record of the `memories` stream."""
    op = record.get("op")
    if op not in OPS:
        raise MemoryInputError(f"memory record with unknown op {op!r}")
    if op in ("add", "update", "reinforce", "supersede", "forget"):
        check_mid(record.get("mid"))
    if op == "add":
        check_text(record.get("text"))
        check_kind(record.get("kind"))
        check_status(record.get("status", "active"))
        check_source(record.get("source", "agent"))
        check_importance(record.get("importance", 0.5))
        check_tags(record.get("tags"))
        anchors = record.get("anchors") or []
        if not isinstance(anchors, list) or len(anchors) > MAX_ANCHORS:
            raise MemoryInputError(f"anchors must be a list of at most {MAX_ANCHORS}")
        for a in anchors:
            if not isinstance(a, dict) or "path" not in a:
                raise MemoryInputError("an anchor must be an object with a path")
            parse_anchor(a["path"])
    elif op == "update":
        fields = record.get("fields")
        if not isinstance(fields, dict) or not fields:
            raise MemoryInputError("a memory update names no field")
        for k, v in fields.items():
            if k == "text":
                check_text(v)
            elif k == "kind":
                check_kind(v)
            elif k == "status":
                check_status(v)
            elif k == "importance":
                check_importance(v)
            elif k == "tags":
                check_tags(v)
            elif k == "anchors":
                if not isinstance(v, list):
                    raise MemoryInputError("anchors must be a list")
            else:
                raise MemoryInputError(f"a memory has no field {k!r}")
    elif op == "recall":
        mids = record.get("mids")
        if not isinstance(mids, list):
            raise MemoryInputError("a recall record lists no memories")
        for m in mids:
            check_mid(m)
    elif op == "supersede":
        check_mid(record.get("by"))
    if "links" in record:
        links = record["links"]
        if not isinstance(links, dict) or len(links) > MAX_LINKS:
            raise MemoryInputError(f"links must map at most {MAX_LINKS} ids to weights")


# the journal's per-stream record check: `VALIDATORS[stream](record)` raises on a bad record
VALIDATORS = {STREAM: validate_memory}


# ---------------------------------------------------------------- fold


def memory_from_add(rec: dict[str, Any], ts: str) -> Memory:
    return Memory(
        id=rec["mid"],
        kind=check_kind(rec["kind"]),
        text=check_text(rec["text"]),
        importance=check_importance(rec.get("importance", 0.5)),
        status=check_status(rec.get("status", "active")),
        tags=check_tags(rec.get("tags")),
        anchors=tuple(Anchor.from_dict(a) for a in rec.get("anchors") or []),
        source=check_source(rec.get("source", "agent")),
        shared=bool(rec.get("shared", False)),
        origin=rec.get("origin"),
        created=rec.get("created") or ts,
        updated=rec.get("updated") or rec.get("created") or ts,
        supersedes=tuple(rec.get("supersedes") or ()),
        superseded_by=rec.get("superseded_by"),
        links={str(k): float(v) for k, v in (rec.get("links") or {}).items()},
    )


def apply_update(mem: Memory, fields: dict[str, Any], ts: str) -> None:
    for k, v in fields.items():
        if k == "text":
            mem.text = check_text(v)
        elif k == "kind":
            mem.kind = check_kind(v)
        elif k == "status":
            mem.status = check_status(v)
        elif k == "importance":
            mem.importance = check_importance(v)
        elif k == "tags":
            mem.tags = check_tags(v)
        elif k == "anchors":
            mem.anchors = tuple(Anchor.from_dict(a) for a in v)
    mem.updated = max(mem.updated, ts)


def fold(
    records: list[dict[str, Any]], base: dict[str, Memory] | None = None
) -> tuple[dict[str, Memory], list[str]]:
    """The memories after `records` (journal order) on top of `base` (imported memories);
    returns them by id, forgotten ones included (with `forgotten` set), and warnings."""
    mems: dict[str, Memory] = {k: _copy(v) for k, v in (base or {}).items()}
    warnings: list[str] = []
    for rec in records:
        ts = str(rec.get("ts") or "")
        try:
            validate_memory(rec)
        except InputError as exc:
            warnings.append(f"memories record {rec.get('id')}: skipped ({exc})")
            continue
        op = rec["op"]
        if op == "add":
            mem = memory_from_add(rec, ts)
            old = mems.get(mem.id)
            if old is not None:  # an imported memory written again: keep its usage
                mem.recalls, mem.last_recalled = old.recalls, old.last_recalled
                mem.links = {**old.links, **mem.links}
            mems[mem.id] = mem
            for other, w in mem.links.items():
                if other in mems:
                    mems[other].links.setdefault(mem.id, w)
            continue
        if op == "maintain":
            continue
        targets = rec["mids"] if op == "recall" else [rec["mid"]]
        for mid in targets:
            m = mems.get(mid)
            if m is None:
                continue
            if op == "update":
                apply_update(m, rec["fields"], ts)
            elif op == "recall":
                m.recalls += 1
                m.last_recalled = str(rec.get("at") or ts)
            elif op == "reinforce":
                m.recalls += 1
                m.last_recalled = ts
                if rec.get("importance") is not None:
                    m.importance = max(m.importance, check_importance(rec["importance"]))
            elif op == "supersede":
                m.status = "superseded"
                m.superseded_by = rec["by"]
                m.updated = max(m.updated, ts)
                new = mems.get(rec["by"])
                if new is not None and mid not in new.supersedes:
                    new.supersedes = (*new.supersedes, mid)
            elif op == "forget":
                m.forgotten = str(rec.get("reason") or "forgotten")
    return mems, warnings


def _copy(m: Memory) -> Memory:
    return Memory(**{**m.__dict__, "links": dict(m.links)})


# ---------------------------------------------------------------- decay


def decay_lambda(kind: str, importance: float) -> float:
    return BASE_LAMBDA.get(kind, 0.2) * (1.0 - 0.8 * importance)


def days_between(earlier: str, now: datetime) -> float:
    t = parse_time(earlier)
    if t is None:
        return 0.0
    return max(0.0, (now - t).total_seconds() / 86400.0)


def strength(mem: Memory, now: datetime) -> float:
    """Ebbinghaus strength: importance x e^(-lambda x days) x (1 + 0.2 x recalls)."""
    days = days_between(mem.last_used, now)
    lam = decay_lambda(mem.kind, mem.importance)
    return mem.importance * math.exp(-lam * days) * (1.0 + 0.2 * mem.recalls)


def usage_factor(mem: Memory, now: datetime) -> float:
    """The ranking's recency term: fades with disuse (never below 0.6), grows with recalls."""
    days = days_between(mem.last_used, now)
    fresh = math.exp(-decay_lambda(mem.kind, mem.importance) * days)
    return (0.6 + 0.4 * fresh) * (1.0 + 0.1 * math.log1p(mem.recalls))


def importance_factor(importance: float) -> float:
    return 1.0 + 0.6 * (importance - 0.5)


# ---------------------------------------------------------------- index documents


def imported_memories(records: Iterable[str]) -> dict[str, Memory]:
    """The memories of a generation's `memories` table (its `record` column, JSON `add`
    records); a record that does not parse is left out."""
    out: dict[str, Memory] = {}
    for raw in records:
        try:
            data = json.loads(raw)
            mem = memory_from_add(data, str(data.get("created") or ""))
        except (ValueError, KeyError, TypeError, InputError):
            continue
        out[mem.id] = mem
    return out


def indexed(mem: Memory) -> bool:
    """Whether a memory belongs in the index's documents: what recall serves by default.
    Forgotten, superseded, rejected and archived memories stay out."""
    return mem.forgotten is None and mem.status == "active"


def document_fields(mem: Memory) -> dict[str, Any]:
    """A memory as a document of the index: the title names its kind, the body is its text
    with tags and anchors, so BM25 and the embedder see what recall compares."""
    first = mem.text.splitlines()[0] if mem.text else ""
    paths = list(dict.fromkeys(a.path for a in mem.anchors))
    symbols = list(dict.fromkeys(a.symbol for a in mem.anchors if a.symbol))
    t = parse_time(mem.updated) or parse_time(mem.created)
    return {
        "kind": "memory",
        "key": mem.id,
        "path": paths[0] if paths else None,
        "symbol": mem.anchors[0].symbol if mem.anchors else None,
        "paths": paths,
        "symbols": symbols,
        "title": f"{mem.kind}: {first}"[:300],
        "body": "\n".join([mem.text, *mem.tags, *(a.label for a in mem.anchors)]),
        "time": int(t.timestamp()) if t is not None else 0,
    }
