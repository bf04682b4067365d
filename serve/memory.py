"""The memory book: remember, recall, update, forget and consolidate an agent's memories.

Memories live in three places, read together: the journal's `memories` stream (every write, at
once), the live generation's `memories` table (ADRs, git-derived pitfalls and hotspots, and the
team file, as of the last index run) and the team file `memories.jsonl` itself. Invariants:

- Every write is validated completely before anything is appended (bad input: one error, nothing
  written) and is one journal append per change, durable before the call returns.
- Dedup on write: similarity >= 0.85 reinforces the existing memory; 0.65-0.85 supersedes it when
  the two disagree in polarity (with an edge both ways), merges into it when they agree and are
  of the same kind; anything else is new and links to its up to 5 most similar memories
  (similarity >= 0.40, weight = similarity x 0.5).
- Recall ranks by hybrid relevance (BM25 + vectors, each normalised by its best) x kind weight
  x importance x status x usage (decay and reinforcement), follows links breadth first to depth
  2 with a discount, drops matches below 20 % of the best, and appends one `recall` record for
  what it returned.
- The index holds every active memory as a `memory` document (folded in by the `documents`
  stage); recall reads an indexed memory's stored vector while its document still says what the
  memory says, and search shows a memory document only while the memory is active: the state
  always comes from the fold here, never from the index.
- A memory anchored to code carries the content hash of its symbol (or file) when written; a
  different hash in the live index marks it "possibly stale since <commit>" (`staleness`).
- The clock is injectable (`clock`), so decay is tested on controlled time.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..store.errors import GitstrataError
from ..store.journal import Journal
from ..store.memory import (
    KIND_WEIGHT,
    MAX_TEXT,
    STATUS_WEIGHT,
    STREAM,
    Anchor,
    Memory,
    MemoryInputError,
    check_importance,
    check_kind,
    check_mid,
    check_source,
    check_status,
    check_tags,
    check_text,
    document_fields,
    fmt_time,
    fold,
    importance_factor,
    indexed,
    parse_anchor,
    strength,
    usage_factor,
    validate_memory,
)
from ..store.memory_team import TeamFile
from ..store.redact import redact_text
from ..store.vocabulary import HOTSPOT_TAG
from .memory_rank import BM25, MemoryVectors, opposite
from .memory_stale import Staleness, StaleNote

# the index's memory documents (Arrow, numpy, the embedder) are read on the first recall: the
# MCP server builds a `MemoryBook` before it answers `initialize`
if TYPE_CHECKING:
    from .memory_index import IndexMemories

REINFORCE_AT = 0.85
CONFLICT_AT = 0.65
LINK_AT = 0.40
LINK_WEIGHT = 0.5
CLUSTER_AT = 0.70
PRUNE_BELOW = 0.05
DROP_BELOW = 0.20  # of the best match
HOP_DISCOUNT = 0.6
CHANCE_COSINE = 0.2  # short unrelated texts reach about this much similarity
COVER_AT = 0.5  # of a question's words a memory holds to be about it
MAINTAIN_EVERY_HOURS = 12.0
MAX_RECALL = 50


@dataclass
class Recalled:
    memory: Memory
    score: float
    relevance: float = 0.0
    strength: float = 0.0
    via: str | None = None  # the memory whose link brought this one
    stale: list[StaleNote] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = self.memory.to_dict()
        out.update(
            score=round(self.score, 4),
            relevance=round(self.relevance, 4),
            strength=round(self.strength, 4),
            via=self.via,
            stale=[s.to_dict() for s in self.stale],
        )
        return out


@dataclass
class WriteResult:
    action: str  # created | reinforced | merged | superseded
    memory: Memory
    other: Memory | None = None  # the memory reinforced, merged into, or superseded
    similarity: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "memory": self.memory.to_dict(),
            "other": self.other.id if self.other is not None else None,
            "similarity": round(self.similarity, 4),
        }


def new_id(text: str, when: str) -> str:
    salt = os.urandom(8).hex()
    return "m" + hashlib.blake2b(f"{text}\0{when}\0{salt}".encode(), digest_size=5).hexdigest()


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def merge_text(primary: str, other: str) -> str:
    """`primary` plus the sentences of `other` it does not already say."""
    have = {s.lower().rstrip(".") for s in _sentences(primary)}
    extra = [s for s in _sentences(other) if s.lower().rstrip(".") not in have]
    return " ".join([primary.strip(), *extra])[:4000]


class MemoryBook:
    """The memories of one store folder (`.strata/` or `--out DIR`) and repository."""

    def __init__(
        self,
        store_root: Path,
        repo_root: Path | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
        embed: Callable[[str], Any] | None = None,
        use_index: bool = True,
        index_vectors: bool = False,
    ) -> None:
        self.root = Path(store_root)
        self.repo_root = Path(repo_root) if repo_root is not None else None
        self.journal = Journal(self.root / "journal")
        self.team = TeamFile(self.root / "memories.jsonl")
        # stat'ed on every read (three times a request): the strings are built once
        self._journal_file = str(self.journal.path(STREAM))
        self._team_file = str(self.team.path)
        self.clock = clock or (lambda: datetime.now(UTC))
        self.vectors = MemoryVectors(embed)
        # the live generation's embedder, reloaded when the generation changes
        self.index_vectors = index_vectors and embed is None and use_index
        self._vectors_gen: str | None = None
        self.stale_index = Staleness(self.root) if use_index else None
        self.warnings: list[str] = []
        self.used: set[str] = set()  # memories this session's recalls returned
        self._lock = threading.Lock()
        self._cached: tuple[Any, dict[str, Memory]] | None = None
        # the live generation's memory documents (read on first recall after a swap)
        self._indexed: IndexMemories | None = None
        # BM25 statistics of a pool's texts: the same pool on every recall until a memory changes
        self._bm25: dict[tuple[str, ...], BM25] = {}
        # (query, mode, the pool as `IndexMemories.row` sees it) -> (index memories, relevance)
        self._relevances: dict[tuple[Any, ...], tuple[Any, list[float]]] = {}
        # (query, memory text, index generation) -> cosine, from the last recalls
        self._cosine_of: dict[tuple[str, str, Any], float] = {}
        # `for_target`'s question -> (the memories it read, the minute, its answer)
        self._targets: dict[tuple[Any, ...], tuple[dict[str, Memory], datetime, list[Any]]] = {}

    # ------------------------------------------------------------ state

    def now(self) -> datetime:
        return self.clock().astimezone(UTC)

    def _signature(self) -> Any:
        return (_stat_key(self._journal_file), _stat_key(self._team_file), self._generation())

    def _generation(self) -> str | None:
        return self.stale_index.generation_name() if self.stale_index else None

    def all(self) -> dict[str, Memory]:
        """Every memory by id, forgotten ones included (`forgotten` set)."""
        sig = self._signature()
        if self.index_vectors and sig[2] != self._vectors_gen:
            self._vectors_gen = sig[2]
            root = self.root
            self.vectors = MemoryVectors(loader=lambda: index_embedder(root))
            self._indexed = None
        with self._lock:
            if self._cached is not None and self._cached[0] == sig:
                return self._cached[1]
        base: dict[str, Memory] = {}
        if self.stale_index is not None:
            base.update(self.stale_index.imported())
        for mem in self.team.read(self.warnings):
            old = base.get(mem.id)
            if old is None or mem.updated >= old.updated:
                base[mem.id] = mem
        got = self.journal.read(STREAM)
        mems, warnings = fold(got.records, base)
        self.warnings = [*got.warnings, *warnings]
        with self._lock:
            self._cached = (sig, mems)
        return mems

    def live(self) -> list[Memory]:
        return _unforgotten(self.all())

    def get(self, mid: str) -> Memory:
        mems = self.all()
        mid = str(mid).strip()
        if mid in mems and mems[mid].forgotten is None:
            return mems[mid]
        found = [m for k, m in mems.items() if k.startswith(mid) and m.forgotten is None]
        if len(mid) >= 4 and len(found) == 1:
            return found[0]
        raise MemoryInputError(
            f"unknown memory id {mid!r}",
            hint="list memories with `gitstrata memory list` (or the recall tool)",
        )

    # ------------------------------------------------------------ writes

    def _append(self, record: dict[str, Any]) -> dict[str, Any]:
        validate_memory(record)
        record.setdefault("ts", fmt_time(self.now()))
        return self.journal.append(STREAM, record)

    def resolve_anchors(self, anchors: Iterable[str] | None) -> list[Anchor]:
        out: list[Anchor] = []
        for text in anchors or ():
            a = parse_anchor(text)
            if self.repo_root is not None:
                full = (self.repo_root / a.path).resolve()
                root = self.repo_root.resolve()
                if full != root and root not in full.parents:
                    raise MemoryInputError(f"anchor {text!r} is outside the repository")
            if self.stale_index is not None:
                a = self.stale_index.pin(a, self.repo_root)
            out.append(a)
        if len(out) > 16:
            raise MemoryInputError(f"{len(out)} anchors, more than 16")
        return list(dict.fromkeys(out))

    def remember(
        self,
        text: str,
        kind: str = "fact",
        *,
        importance: float = 0.5,
        tags: Iterable[str] | str | None = None,
        anchors: Iterable[str] | None = None,
        source: str = "agent",
        status: str = "active",
        share: bool = False,
        dedup: bool = True,
    ) -> WriteResult:
        """Store a memory (or reinforce, merge into or supersede a similar one)."""
        text = check_text(text)
        kind = check_kind(kind)
        importance = check_importance(importance)
        tag_list = check_tags(list(tags) if isinstance(tags, list | tuple) else tags)
        source = check_source(source)
        status = check_status(status)
        pinned = self.resolve_anchors(anchors)
        now = fmt_time(self.now())
        others = [m for m in self.live() if m.status != "superseded"]
        sims = sorted(
            ((self.vectors.similarity(text, m.text), m) for m in others),
            key=lambda x: (-x[0], x[1].id),
        )
        if dedup and sims:
            sim, best = sims[0]
            compatible = _anchors_compatible(pinned, best.anchors)
            if sim >= REINFORCE_AT and compatible:
                self._append(
                    {"op": "reinforce", "mid": best.id, "importance": importance, "ts": now}
                )
                return WriteResult("reinforced", self.get(best.id), best, sim)
            if sim >= CONFLICT_AT and compatible and opposite(text, best.text):
                mid = new_id(text, now)
                self._append(
                    self._add_record(
                        mid,
                        text,
                        kind,
                        importance,
                        tag_list,
                        pinned,
                        source,
                        status,
                        share,
                        now,
                        supersedes=[best.id],
                    )  # fmt: skip
                )
                self._append({"op": "supersede", "mid": best.id, "by": mid, "ts": now})
                self._sync_team(best.id)
                self._sync_team(mid)
                return WriteResult("superseded", self.get(mid), best, sim)
            if sim >= CONFLICT_AT and compatible and best.kind == kind:
                fields: dict[str, Any] = {"text": merge_text(best.text, text)}
                if importance > best.importance:
                    fields["importance"] = importance
                if set(tag_list) - set(best.tags):
                    fields["tags"] = sorted(set(best.tags) | set(tag_list))
                if set(pinned) - set(best.anchors):
                    fields["anchors"] = [
                        a.to_dict() for a in dict.fromkeys([*best.anchors, *pinned])
                    ]
                self._append({"op": "update", "mid": best.id, "fields": fields, "ts": now})
                self._sync_team(best.id)
                return WriteResult("merged", self.get(best.id), best, sim)
        mid = new_id(text, now)
        record = self._add_record(
            mid, text, kind, importance, tag_list, pinned, source, status, share, now
        )
        links = {m.id: round(s * LINK_WEIGHT, 4) for s, m in sims[:5] if s >= LINK_AT}
        if links:
            record["links"] = links
        self._append(record)
        if share:
            self._sync_team(mid)
        return WriteResult("created", self.get(mid), None, sims[0][0] if sims else 0.0)

    def _add_record(
        self,
        mid: str,
        text: str,
        kind: str,
        importance: float,
        tags: tuple[str, ...],
        anchors: list[Anchor],
        source: str,
        status: str,
        share: bool,
        now: str,
        supersedes: list[str] | None = None,
    ) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "op": "add",
            "mid": mid,
            "kind": kind,
            "text": text,
            "importance": importance,
            "status": status,
            "tags": list(tags),
            "anchors": [a.to_dict() for a in anchors],
            "source": source,
            "created": now,
            "ts": now,
        }
        if share:
            rec["shared"] = True
        if supersedes:
            rec["supersedes"] = supersedes
        return rec

    def update(
        self,
        mid: str,
        *,
        text: str | None = None,
        kind: str | None = None,
        importance: float | None = None,
        status: str | None = None,
        tags: Iterable[str] | str | None = None,
        anchors: Iterable[str] | None = None,
        share: bool | None = None,
    ) -> Memory:
        mem = self.get(mid)
        fields: dict[str, Any] = {}
        if text is not None:
            fields["text"] = check_text(text)
        if kind is not None:
            fields["kind"] = check_kind(kind)
        if importance is not None:
            fields["importance"] = check_importance(importance)
        if status is not None:
            fields["status"] = check_status(status)
        if tags is not None:
            fields["tags"] = list(
                check_tags(list(tags) if isinstance(tags, list | tuple) else tags)
            )
        if anchors is not None:
            fields["anchors"] = [a.to_dict() for a in self.resolve_anchors(anchors)]
        if not fields and share is None:
            raise MemoryInputError(
                f"nothing to change in memory {mem.id}",
                hint="give a new text, kind, importance, status, tags or anchors",
            )
        if fields:
            self._append({"op": "update", "mid": mem.id, "fields": fields})
        if share and not mem.shared:
            rec = self._add_record(
                mem.id, mem.text, mem.kind, mem.importance, mem.tags, list(mem.anchors),
                mem.source, mem.status, True, mem.created,
            )  # fmt: skip
            rec["ts"] = fmt_time(self.now())
            self._append(rec)
            if fields:
                self._append({"op": "update", "mid": mem.id, "fields": fields})
        self._sync_team(mem.id, unshare=share is False)
        return self.get(mem.id)

    def forget(self, mid: str, reason: str = "forgotten") -> Memory:
        mem = self.get(mid)
        self._append({"op": "forget", "mid": mem.id, "reason": reason[:200]})
        if mem.shared:
            self.team.remove(mem.id)
        return mem

    def _sync_team(self, mid: str, *, unshare: bool = False) -> None:
        mem = self.all().get(mid)
        if mem is None or not mem.shared:
            return
        if unshare or mem.forgotten is not None:
            self.team.remove(mid)
        else:
            self.team.put(mem)

    # ------------------------------------------------------------ reads

    def recall(
        self,
        query: str,
        limit: int = 5,
        *,
        kinds: Iterable[str] | None = None,
        tags: Iterable[str] | None = None,
        include_inactive: bool = True,
        reinforce: bool = True,
        follow_links: bool = True,
        mode: str = "hybrid",
    ) -> list[Recalled]:
        """The memories that best answer `query`, best first; each returned one is reinforced."""
        return self._recall(
            self.live(),
            query,
            limit,
            kinds=kinds,
            tags=tags,
            include_inactive=include_inactive,
            reinforce=reinforce,
            follow_links=follow_links,
            mode=mode,
        )

    def _recall(
        self,
        live: list[Memory],
        query: str,
        limit: int,
        *,
        kinds: Iterable[str] | None,
        tags: Iterable[str] | None,
        include_inactive: bool,
        reinforce: bool,
        follow_links: bool,
        mode: str,
        now: datetime | None = None,
    ) -> list[Recalled]:
        """`recall` over `live`, the live memories just read (a request reads them once), as
        of `now` (default: the clock's time)."""
        query = check_text(query)
        if not 1 <= int(limit) <= MAX_RECALL:
            raise MemoryInputError(f"limit {limit} is not from 1 to {MAX_RECALL}")
        if mode not in ("hybrid", "bm25", "vector"):
            raise MemoryInputError(f"unknown recall mode {mode!r}", hint="hybrid, bm25 or vector")
        kind_set = {check_kind(k) for k in kinds} if kinds else None
        tag_set = set(check_tags(list(tags))) if tags else None
        pool = [
            m
            for m in live
            if (kind_set is None or m.kind in kind_set)
            and (tag_set is None or tag_set & set(m.tags))
            and (include_inactive or m.status == "active")
        ]
        if not pool:
            return []
        now = self.now() if now is None else now
        rel = self._relevance(query, pool, mode)
        by_id = {m.id: m for m in pool}
        scored: dict[str, Recalled] = {}
        for m, rv in zip(pool, rel, strict=True):
            if rv <= 0:
                continue
            scored[m.id] = Recalled(m, rv * self._prior(m, now), rv, strength(m, now))
        if not scored:
            return []
        if follow_links:
            seeds = sorted(scored.values(), key=lambda x: -x.score)[:limit]
            frontier = [(s, 0) for s in seeds]
            while frontier:
                hit, depth = frontier.pop(0)
                if depth >= 2:
                    continue
                for nid, w in sorted(hit.memory.links.items()):
                    n = by_id.get(nid)
                    if n is None:
                        continue
                    s = (
                        hit.score
                        * w
                        * HOP_DISCOUNT
                        * self._prior(n, now)
                        / self._prior(hit.memory, now)
                    )
                    if nid not in scored or scored[nid].score < s:
                        if nid in scored and scored[nid].via is None:
                            continue  # a direct match keeps its own score
                        scored[nid] = Recalled(n, s, 0.0, strength(n, now), via=hit.memory.id)
                        frontier.append((scored[nid], depth + 1))
        ranked = sorted(scored.values(), key=lambda x: (-x.score, x.memory.id))
        best = ranked[0].score
        # the 20 % floor is for matches; an association is there because of its link
        ranked = [r for r in ranked if r.via is not None or r.score >= DROP_BELOW * best][:limit]
        for r in ranked:
            r.stale = self.staleness(r.memory)
        if reinforce and ranked:
            self._append(
                {"op": "recall", "mids": [r.memory.id for r in ranked], "at": fmt_time(now)}
            )
            self.used.update(r.memory.id for r in ranked)
        return ranked

    def adjust_used(self, delta: float) -> dict[str, float]:
        """Move the importance of every memory this session recalled by `delta` (a session
        outcome: the memories a successful session used matter more), within 0..1; returns the
        new importance of each changed one. Each change is an update record."""
        out: dict[str, float] = {}
        live = {m.id: m for m in self.live()}
        for mid in sorted(self.used):
            mem = live.get(mid)
            if mem is None:
                continue
            new = round(min(1.0, max(0.0, mem.importance + delta)), 3)
            if new != mem.importance:
                self.update(mid, importance=new)
                out[mid] = new
        return out

    def _prior(self, m: Memory, now: datetime) -> float:
        return (
            KIND_WEIGHT.get(m.kind, 1.0)
            * importance_factor(m.importance)
            * STATUS_WEIGHT.get(m.status, 1.0)
            * usage_factor(m, now)
        )

    def _relevance(self, query: str, pool: list[Memory], mode: str) -> list[float]:
        """Each pooled memory's relevance to `query`, from 0 to 1: the same for the same query,
        pool and index generation (kept: a preflight asks it of every target's name), while
        the scores built on it age with the memories."""
        idx = self._index_memories_read() if mode != "bm25" else None
        key = (query, mode, tuple((m.id, m.kind, m.text, m.tags, m.anchors) for m in pool))
        got = self._relevances.get(key)
        if got is not None and got[0] is idx:
            return got[1]
        rel = self._relevance_of(query, pool, mode)
        with self._lock:
            if len(self._relevances) >= 256:
                self._relevances.clear()
            self._relevances[key] = (idx, rel)
        return rel

    def _relevance_of(self, query: str, pool: list[Memory], mode: str) -> list[float]:
        docs = [_doc_text(m) for m in pool]
        kw = [0.0] * len(pool)
        if mode in ("hybrid", "bm25"):
            kw = self._bm25_of(docs).scores(self.vectors.terms(query))
        vec = [0.0] * len(pool)
        if mode in ("hybrid", "vector"):
            raw = self._cosines(query, pool, docs)
            vec = [max(0.0, (x - CHANCE_COSINE) / (1 - CHANCE_COSINE)) for x in raw]
        best_kw, best_vec = max(kw) or 1.0, max(vec) or 1.0
        if mode == "bm25":
            return [k / best_kw for k in kw]
        if mode == "vector":
            return [v / best_vec for v in vec]
        return [0.5 * k / best_kw + 0.5 * v / best_vec for k, v in zip(kw, vec, strict=True)]

    def _cosines(
        self, query: str, pool: list[Memory], docs: list[str] | None = None
    ) -> list[float]:
        """cos(query, each pooled memory), kept for `close_to` (a search asks it of the
        memories its recall just scored)."""
        self._index_memories_read()  # notices a new generation
        docs = [_doc_text(m) for m in pool] if docs is None else docs
        keys = [(query, d, self._vectors_gen) for d in docs]
        kept = [self._cosine_of.get(k) for k in keys]
        if all(c is not None for c in kept):
            return [float(c or 0.0) for c in kept]
        known = self._index_cosines(query, pool)
        got = [self.vectors.cosine(query, d, known.get(i)) for i, d in enumerate(docs)]
        with self._lock:
            if len(self._cosine_of) >= 4096:
                self._cosine_of.clear()
            self._cosine_of.update(zip(keys, got, strict=True))
        return got

    def close_to(self, query: str, memories: list[Memory]) -> list[bool]:
        """Whether each memory is about `query` on its own terms, not only ranked above the
        rest: it holds at least half of the question's words (`COVER_AT`), or it is closer in
        meaning than short unrelated texts come by chance (cosine above `CHANCE_COSINE`). The
        bar for a memory shown unasked beside an answer: recall ranks a pool against its best,
        so one shared word ("use", "default", "code") carried the best of a small pool."""
        if not memories:
            return []
        query = check_text(query)
        asked = set(self.vectors.terms(query))
        cos = self._cosines(query, memories)
        out = []
        for m, c in zip(memories, cos, strict=True):
            held = asked & set(self.vectors.terms(_doc_text(m))) if asked else set()
            out.append(c > CHANCE_COSINE or (bool(asked) and len(held) >= COVER_AT * len(asked)))
        return out

    def _bm25_of(self, docs: list[str]) -> BM25:
        key = tuple(docs)
        got = self._bm25.get(key)
        if got is None:
            got = BM25([self.vectors.terms(d) for d in docs])
            with self._lock:
                if len(self._bm25) >= 64:
                    self._bm25.clear()
                self._bm25[key] = got
        return got

    def index_memories(self) -> IndexMemories | None:
        """The live generation's memory documents, when recall uses the index's vectors."""
        if not self.index_vectors or self.stale_index is None:
            return None
        self.all()  # notices a swapped generation
        return self._index_memories_read()

    def _index_memories_read(self) -> IndexMemories | None:
        """`index_memories` right after `all()` noticed the generation (a recall's pool)."""
        if not self.index_vectors or self.stale_index is None:
            return None
        if self._indexed is None or self._indexed.name != self._vectors_gen:
            gen = None
            if self._vectors_gen is not None:
                try:
                    gen = self.stale_index.store.live()
                except GitstrataError:
                    gen = None
            from .memory_index import open_index_memories

            self._indexed = open_index_memories(gen)
        return self._indexed

    def _index_cosines(self, query: str, pool: list[Memory]) -> dict[int, float]:
        """The embedder's cosine of `query` with each pooled memory the index holds as it is
        now (by position in `pool`); the others are embedded at query time."""
        idx = self._index_memories_read()  # `pool` was read by `all()` a moment ago
        if idx is None or not len(idx):
            return {}
        at = {i: r for i, m in enumerate(pool) if (r := idx.row(m)) is not None}
        qvec = self.vectors.dense(query) if at else None
        if qvec is None:
            return {}
        cos = idx.cosines(qvec, list(at.values()))
        return dict(zip(at, cos, strict=True))

    def filter_hits(self, hits: list[Any]) -> list[Any]:
        """Search hits with the index's memory documents checked against the live memories:
        a forgotten or no longer active memory is left out, a changed one shows its text of
        now; the rest keep their order, ranks renumbered."""
        if not any(h.kind == "memory" for h in hits):
            return hits
        try:
            live = {m.id: m for m in self.live() if indexed(m)}
        except GitstrataError:
            live = {}  # unreadable memories: none is shown rather than a stale one
        out = []
        for h in hits:
            if h.kind == "memory":
                mem = live.get(h.key)
                if mem is None:
                    continue
                h.title = redact_text(document_fields(mem)["title"]) or ""
                h.snippet = (redact_text(mem.text) or "")[:300]
            out.append(h)
        for i, h in enumerate(out, start=1):
            h.rank = i
        return out

    def for_target(
        self,
        path: str,
        symbol: str | None = None,
        context: str | None = None,
        limit: int = 5,
        partners: Iterable[str] = (),
    ) -> list[Recalled]:
        """Decisions, pitfalls and principles for preflight: those anchored to the target (or
        its file) first, then those the target's name or the intended change recalls.

        Scored as of the current minute: decay counts days, and an agent asks about the same
        target again and again, so the answer is kept until the minute, the memories read
        (a write, or a new generation, reads them anew) or the question changes."""
        every = self.all()
        now = self.now().replace(second=0, microsecond=0)
        key = (path, symbol, context, limit, tuple(partners))
        got = self._targets.get(key)
        if got is not None and got[0] is every and got[1] == now:
            return list(got[2])
        ranked = self._for_target(every, now, path, symbol, context, limit, key[4])
        with self._lock:
            if len(self._targets) >= 256:
                self._targets.clear()
            self._targets[key] = (every, now, ranked)
        return list(ranked)

    def _for_target(
        self,
        every: dict[str, Memory],
        now: datetime,
        path: str,
        symbol: str | None,
        context: str | None,
        limit: int,
        partners: tuple[str, ...],
    ) -> list[Recalled]:
        live = _unforgotten(every)
        mems = [m for m in live if m.status in ("active", "rejected")]
        if not mems:
            return []
        out: dict[str, Recalled] = {}
        for m in mems:
            for a in m.anchors:
                if a.path == path and (a.symbol is None or symbol is None or a.symbol == symbol):
                    if a.symbol is None and symbol is not None and _candidate(m):
                        continue  # a commit's candidate is about some code of the file
                    exact = 2.0 if a.symbol is not None and a.symbol == symbol else 1.5
                    out[m.id] = Recalled(m, exact * self._prior(m, now), 1.0, strength(m, now))
        # memories about the files that change together with the target (co-change partners);
        # not a commit's candidate: a central file's reverts would follow every edit around it
        for rank, partner in enumerate(dict.fromkeys(partners)):
            for m in mems:
                if (
                    m.id not in out
                    and not _candidate(m)
                    and any(a.path == partner for a in m.anchors)
                ):
                    score = 0.8 / (1 + rank) * self._prior(m, now)
                    out[m.id] = Recalled(m, score, 0.5, strength(m, now), via=partner)
        query = " ".join(x for x in (context, symbol, path) if x)[:MAX_TEXT]
        wanted = ("decision", "pitfall", "principle")
        # only an unanchored memory of those kinds can be taken from the recall below: without
        # one, its ranking (the query embedded, every pooled memory scored) is not needed
        if query.strip() and any(not m.anchors and m.kind in wanted for m in live):
            # a memory anchored elsewhere (another symbol of this file) is about that code;
            # an unanchored one qualifies by sharing at least two terms with the target
            qterms = set(self.vectors.terms(query))
            for r in self._recall(
                live, query, limit, kinds=wanted, tags=None, include_inactive=False,
                reinforce=False, follow_links=False, mode="hybrid", now=now,
            ):  # fmt: skip
                m = r.memory
                if m.id in out or m.anchors or r.relevance < 0.5:
                    continue
                if len(qterms & set(self.vectors.terms(m.text))) >= 2:
                    out[m.id] = r
        ranked = sorted(out.values(), key=lambda x: (-x.score, x.memory.id))[:limit]
        for r in ranked:
            r.stale = self.staleness(r.memory)
        return ranked

    def staleness(self, mem: Memory) -> list[StaleNote]:
        if self.stale_index is None or not mem.anchors:
            return []
        return self.stale_index.check(mem)

    def stale(self) -> list[tuple[Memory, list[StaleNote]]]:
        out = []
        for m in sorted(self.live(), key=lambda m: m.id):
            notes = self.staleness(m)
            if notes:
                out.append((m, notes))
        return out

    def listing(
        self, *, kind: str | None = None, status: str | None = None, include_forgotten: bool = False
    ) -> list[Memory]:
        k = check_kind(kind) if kind else None
        s = check_status(status) if status else None
        mems = self.all().values() if include_forgotten else self.live()
        return sorted(
            (m for m in mems if (k is None or m.kind == k) and (s is None or m.status == s)),
            key=lambda m: (m.created, m.id),
            reverse=True,
        )

    # ------------------------------------------------------------ maintenance

    def consolidate(
        self,
        *,
        prune_below: float = PRUNE_BELOW,
        cluster_at: float = CLUSTER_AT,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Merge clusters of similar memories and prune faded ones (see `memory_maintain`)."""
        from .memory_maintain import consolidate

        return consolidate(self, prune_below=prune_below, cluster_at=cluster_at, dry_run=dry_run)

    def last_maintenance(self) -> str | None:
        from .memory_maintain import last_maintenance

        return last_maintenance(self)

    def maybe_maintain(self) -> dict[str, Any] | None:
        """Consolidate when the last maintenance is older than 12 hours (the server's schedule)."""
        from .memory_maintain import maybe_maintain

        return maybe_maintain(self)

    def stats(self) -> dict[str, Any]:
        from .memory_maintain import stats

        return stats(self)


def _doc_text(m: Memory) -> str:
    return " ".join([m.text, *m.tags, *(a.label for a in m.anchors)])


def _anchors_compatible(a: list[Anchor] | tuple[Anchor, ...], b: tuple[Anchor, ...]) -> bool:
    """Two memories about different code are different memories, however alike their words."""
    if not a or not b:
        return True
    return bool({x.label for x in a} & {y.label for y in b})


def check_limit(limit: Any) -> int:
    try:
        n = int(limit)
    except (TypeError, ValueError):
        n = -1
    if not 1 <= n <= MAX_RECALL:
        raise MemoryInputError(f"limit {limit!r} is not from 1 to {MAX_RECALL}")
    return n


def _stat_key(path: str) -> Any:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=4096)  # the same memories come back answer after answer
def _shown(text: str) -> str:
    return redact_text(text) or ""  # shown beside documents: redacted alike


def _candidate(mem: Memory) -> bool:
    """A pitfall candidate the index drew from a commit (a revert, a fix made again), which
    nobody has confirmed: it is shown where the code the commit changed is edited."""
    return mem.source == "git" and "candidate" in mem.tags


def is_hotspot_fact(m: Memory) -> bool:
    """The hotspots fact the index draws from git history (`stages/memory_sources.py`): a fact
    about the whole repository, for a context pack, that answers no question about its code."""
    return m.source == "git" and m.kind == "fact" and HOTSPOT_TAG in m.tags


def memory_refs(hits: list[Recalled]) -> list[Any]:
    """`hits` as the `MemoryRef`s of search and preflight results."""
    from .models import MemoryRef

    return [
        MemoryRef(
            id=h.memory.id,
            kind=h.memory.kind,
            status=h.memory.status,
            text=_shown(h.memory.text),
            importance=h.memory.importance,
            score=round(h.score, 4),
            anchors=[a.label for a in h.memory.anchors],
            stale=[n.text() for n in h.stale],
            via=h.via,
        )
        for h in hits
    ]


__all__ = [
    "MemoryBook",
    "Recalled",
    "WriteResult",
    "check_limit",
    "check_mid",
    "math",
]


def index_embedder(store_root: Path) -> Callable[[str], Any] | None:
    """The live generation's query embedder, or None (no index, or one without vectors)."""
    from ..store.embedder import Embedder
    from ..store.generations import Store

    try:
        gen = Store(Path(store_root)).live()
        if gen is None or not gen.has("embedder"):
            return None
        # the live generation is the engine's when one serves it: its embedder is search's
        return gen.derived("embedder", lambda: Embedder.load(gen.file("embedder"))).embed_query
    except GitstrataError:
        return None


def _unforgotten(every: dict[str, Memory]) -> list[Memory]:
    """The live memories of `MemoryBook.all()`'s answer."""
    return [m for m in every.values() if m.forgotten is None]
