"""What the live index says about memories: anchors pinned at write time, staleness, imports.

An anchor is pinned when a memory is written: its symbol name resolved to the indexed qualname,
the content hash of that symbol's code (or the file's blob for a file anchor) and the indexed
HEAD recorded. A memory is possibly stale when the live index holds other content for an anchor
(or no longer holds it); the note names the first commit after the pinned HEAD that touched the
anchor (its symbol, for a symbol anchor), so a commit that changed another symbol of the same
file neither marks it nor is named. A renamed file is followed through the history stages'
`head_path`. Everything read from a generation is cached per generation.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..store.errors import GitstrataError
from ..store.generations import Store
from ..store.memory import Anchor, Memory, MemoryInputError, memory_from_add, parse_time
from .targets import resolve_symbol_name


@dataclass(frozen=True)
class StaleNote:
    anchor: str
    reason: str  # changed | removed
    commit: str | None = None
    subject: str | None = None
    date: str | None = None

    def text(self) -> str:
        since = f" since {self.commit[:10]} {self.subject or ''}".rstrip() if self.commit else ""
        what = "was removed" if self.reason == "removed" else "changed"
        return f"possibly stale{since} ({self.anchor} {what})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "anchor": self.anchor,
            "reason": self.reason,
            "commit": self.commit,
            "subject": self.subject,
            "date": self.date,
            "note": self.text(),
        }


def code_hash(code: str) -> str:
    return hashlib.blake2b(code.encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()


class _GenView:
    """The tables of one generation that anchors need, read once; what one anchor needs of them
    (its file's touches, its symbols' hashes) is looked up when first asked for, so a request
    pays for the anchors it shows, not for every symbol and touch of the history."""

    def __init__(self, gen: Any) -> None:
        self.gen = gen
        self.name = gen.path.name
        self.head = gen.manifest.repo_head
        self._loaded = False
        # a memory's notes depend only on this generation and its anchors and creation time
        self.notes: dict[tuple[Any, ...], tuple[StaleNote, ...]] = {}
        self.imported: dict[str, Memory] = {}
        if gen.has("memories"):
            for rec in gen.table("memories", columns=["record"])["record"].to_pylist():
                try:
                    data = json.loads(rec)
                    mem = memory_from_add(data, str(data.get("created") or ""))
                except (ValueError, KeyError, TypeError, GitstrataError):
                    continue
                mem.shared = bool(data.get("shared"))
                self.imported[mem.id] = mem

    def ensure(self) -> _GenView:
        """Read the code and history tables (once, as Arrow): only anchors need them."""
        if self._loaded:
            return self
        self._loaded = True
        gen = self.gen
        sym = gen.table("symbols", columns=["path", "qualname", "start_line", "end_line", "code",
                                             "blob"]) if gen.has("symbols") else None  # fmt: skip
        self.symbols_rows = sym
        self._symbol_hash: dict[str, dict[str, str]] = {}  # path -> qualname -> hash
        self._file_blob: dict[str, str] | None = None
        self._commits_table = (
            gen.table("commits", columns=["sha", "commit_time", "subject"])
            if gen.has("commits")
            else None
        )
        self._commit_row: dict[str, int] | None = None
        self._commits: dict[str, tuple[int, str]] | None = None
        self._touches = (
            gen.table("touches", columns=["sha", "commit_time", "path", "head_path", "qualname",
                                          "status"]) if gen.has("touches") else None
        )  # fmt: skip
        self._history: dict[str, _PathHistory] = {}
        self._renamed: dict[str, str | None] = {}
        return self

    @property
    def file_blob(self) -> dict[str, str]:
        self.ensure()
        if self._file_blob is None:
            self._file_blob = {}
            if self.gen.has("files"):
                t = self.gen.table("files", columns=["path", "blob"])
                self._file_blob = dict(
                    zip(t["path"].to_pylist(), t["blob"].to_pylist(), strict=True)
                )
        return self._file_blob

    def symbols_at(self, path: str) -> dict[str, str]:
        """Each symbol of `path` at HEAD: qualname -> content hash."""
        self.ensure()
        got = self._symbol_hash.get(path)
        if got is None:
            got = {}
            sym = self.symbols_rows
            if sym is not None:
                from . import arrow_ops as pc  # here, not at import: the MCP server imports this

                rows = pc.filter(sym, pc.equal(sym["path"], path))
                for q, code, blob in zip(
                    rows["qualname"].to_pylist(), rows["code"].to_pylist(),
                    rows["blob"].to_pylist(), strict=True,
                ):  # fmt: skip
                    got[q] = code_hash(code) if code is not None else f"blob:{blob}"
            self._symbol_hash[path] = got
        return got

    def commit(self, sha: str) -> tuple[int, str] | None:
        """(commit time in ms, subject) of an indexed commit, None when not indexed."""
        self.ensure()
        t = self._commits_table
        if t is None:
            return None
        if self._commit_row is None:
            self._commit_row = {s: i for i, s in enumerate(t["sha"].to_pylist())}
        i = self._commit_row.get(sha)
        if i is None:
            return None
        return _ms(t["commit_time"][i].as_py()), t["subject"][i].as_py() or ""

    @property
    def commits(self) -> dict[str, tuple[int, str]]:
        """Every indexed commit (sha -> (time in ms, subject)); lookups use `commit`."""
        self.ensure()
        if self._commits is None:
            self._commits = {}
            t = self._commits_table
            if t is not None:
                for sha, when, subject in zip(
                    t["sha"].to_pylist(), t["commit_time"].to_pylist(),
                    t["subject"].to_pylist(), strict=True,
                ):  # fmt: skip
                    self._commits[sha] = (_ms(when), subject or "")
        return self._commits

    def history(self, head_path: str) -> _PathHistory:
        """The touches of the file at HEAD's `head_path`, as columns (a hot file has thousands
        of touches: one anchor's question is answered over them, not turned into objects)."""
        self.ensure()
        got = self._history.get(head_path)
        if got is None:
            t = self._touches
            if t is None:
                got = _PathHistory.empty()
            else:
                from . import arrow_ops as pc

                got = _PathHistory(pc.filter(t, pc.equal(t["head_path"], head_path)))
            self._history[head_path] = got
        return got

    def renamed(self, path: str) -> str | None:
        """The path at HEAD of a file the history knows under an older `path` (the newest
        row's when several say so)."""
        self.ensure()
        if path not in self._renamed:
            found = None
            t = self._touches
            if t is not None:
                from . import arrow_ops as pc

                rows = pc.filter(
                    t, pc.and_(pc.equal(t["path"], path), pc.not_equal(t["path"], t["head_path"]))
                )
                if rows.num_rows:
                    found = rows["head_path"][rows.num_rows - 1].as_py()
            self._renamed[path] = found
        return self._renamed[path]

    def current(self, anchor: Anchor) -> tuple[str, str | None]:
        """(path at the indexed HEAD, content hash there or None when gone)."""
        self.ensure()
        path = anchor.path
        if path not in self.file_blob:
            path = self.renamed(path) or path
        if anchor.symbol:
            return path, self.symbols_at(path).get(anchor.symbol)
        return path, self.file_blob.get(path)


class _PathHistory:
    """One file's touches (sha, commit time, qualname, status), as Arrow columns."""

    def __init__(self, rows: Any) -> None:
        import pyarrow as pa

        from . import arrow_ops as pc

        self.rows = rows
        # git's times are whole seconds: the column's milliseconds as integers are what `_ms`
        # makes of each datetime, without making the datetimes
        when = rows["commit_time"]
        if pa.types.is_timestamp(when.type) and when.type.unit == "ms" and when.type.tz:
            self.times = pc.fill_null(pc.cast(when, pa.int64()), 0).to_numpy()
        else:
            import numpy as np

            self.times = np.array([_ms(x) for x in when.to_pylist()], dtype=np.int64)

    @classmethod
    def empty(cls) -> _PathHistory:
        import pyarrow as pa

        return cls(
            pa.table(
                {
                    "sha": pa.array([], pa.string()),
                    "commit_time": pa.array([], pa.int64()),
                    "qualname": pa.array([], pa.string()),
                    "status": pa.array([], pa.string()),
                }
            )
        )

    def first_after(
        self, symbol: str | None, after: int, head: str | None, skip_created: bool
    ) -> tuple[int, str] | None:
        """The first touch (by time, then sha) later than `after` (ms) of `symbol` (of the file
        when None) by a commit other than `head`; with `skip_created`, not by a commit that
        added the file."""
        import numpy as np

        from . import arrow_ops as pc

        rows = self.rows
        mask = self.times > after
        if symbol:
            mask &= _true(pc.equal(rows["qualname"], symbol))
        if head is not None:
            mask &= _true(pc.not_equal(rows["sha"], head))
        if skip_created:
            added = pc.filter(rows["sha"], pc.equal(rows["status"], "A"))
            if len(added):
                mask &= ~_true(pc.is_in(rows["sha"], value_set=added))
        at = np.flatnonzero(mask)
        if not len(at):
            return None
        first = int(self.times[at].min())
        shas = rows["sha"]
        sha = min(shas[int(i)].as_py() for i in at[self.times[at] == first])
        return first, sha


def _true(flags: Any) -> Any:
    """A boolean Arrow array as numpy, null as false."""
    from . import arrow_ops as pc

    return pc.fill_null(flags, False).to_numpy(zero_copy_only=False)


def _ms(value: Any) -> int:
    if isinstance(value, datetime):
        return int(value.timestamp() * 1000)
    return int(value or 0)


class Staleness:
    def __init__(self, store_root: Path) -> None:
        self.store = Store(Path(store_root))
        self._current: tuple[Any, str | None] | None = None  # (CURRENT's stat, its name)
        self._view: _GenView | None = None
        self._current_file = str(self.store.root / "CURRENT")  # stat'ed on every memory read

    def generation_name(self) -> str | None:
        # CURRENT is replaced by a rename (a new inode), so one stat tells whether to read it
        try:
            st = os.stat(self._current_file)
            key: Any = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            key = None
        cached = self._current
        if cached is not None and key is not None and cached[0] == key:
            return cached[1]
        try:
            name = self.store.current_name()
        except GitstrataError:
            name = None
        self._current = (key, name)
        return name

    def view(self) -> _GenView | None:
        name = self.generation_name()
        if name is None:
            return None
        if self._view is None or self._view.name != name:
            try:
                gen = self.store.live()
            except GitstrataError:
                return None
            if gen is None:
                return None
            self._view = _GenView(gen)
        return self._view

    def imported(self) -> dict[str, Memory]:
        v = self.view()
        return dict(v.imported) if v is not None else {}

    def pin(self, anchor: Anchor, repo_root: Path | None) -> Anchor:
        """`anchor` with its symbol resolved and its content hash and HEAD recorded."""
        v = self.view()
        if v is not None:
            v.ensure()
        known = v is not None and (anchor.path in v.file_blob)
        if not known and repo_root is not None and not (repo_root / anchor.path).exists():
            raise MemoryInputError(
                f"anchor {anchor.label!r}: no such file in the repository",
                hint="anchor to an existing path relative to the repository root",
            )
        if v is None or not known:
            return anchor
        symbol = anchor.symbol
        if symbol:
            qualnames = set(v.symbols_at(anchor.path))
            symbol = resolve_symbol_name(anchor.path, symbol, v.symbols_rows)
            if qualnames and symbol not in qualnames:
                raise MemoryInputError(
                    f"anchor {anchor.label!r}: {anchor.path} has no symbol {anchor.symbol!r}",
                    hint="anchor to the file, or name a function, class or method it defines",
                )
        pinned = Anchor(anchor.path, symbol, None, v.head)
        _, h = v.current(pinned)
        return Anchor(anchor.path, symbol, h, v.head)

    def check(self, mem: Memory) -> list[StaleNote]:
        """`mem`'s staleness notes against the live generation, kept per generation: a new
        generation is a new view, a new memory or an edited anchor a new key."""
        v = self.view()
        if v is None:
            return []
        key = (mem.created, tuple(mem.anchors))
        got = v.notes.get(key)
        if got is None:
            got = tuple(self._notes(v, mem))
            if len(v.notes) >= 4096:
                v.notes.clear()
            v.notes[key] = got
        return list(got)

    def _notes(self, v: _GenView, mem: Memory) -> list[StaleNote]:
        v.ensure()
        notes = []
        for a in mem.anchors:
            path, now_hash = v.current(a)
            if a.hash is not None and now_hash == a.hash:
                continue
            if a.hash is None and a.head is None:
                # written before the file was indexed: stale once a later commit changed it
                # (the commit that added the file is where it starts, not a change)
                since = self._first_touch(v, a, path, None, mem.created, skip_created=True)
                if since is None:
                    continue
            else:
                since = self._first_touch(v, a, path, a.head, mem.created)
            reason = "removed" if now_hash is None else "changed"
            if since is None:
                notes.append(StaleNote(a.label, reason))
            else:
                when, sha = since
                subject = (v.commit(sha) or (0, ""))[1]
                day = datetime.fromtimestamp(when / 1000, UTC).strftime("%Y-%m-%d")
                notes.append(StaleNote(a.label, reason, sha, subject, day))
        return notes

    def _first_touch(
        self,
        v: _GenView,
        a: Anchor,
        path: str,
        head: str | None,
        created: str,
        *,
        skip_created: bool = False,
    ) -> tuple[int, str] | None:
        pinned = v.commit(head) if head is not None else None
        if pinned is not None:
            after = pinned[0]
        else:
            t = parse_time(created)
            after = int(t.timestamp() * 1000) if t is not None else 0
        return v.history(path).first_after(a.symbol, after, head, skip_created)
