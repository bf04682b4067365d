"""The `capsule` stage: one capsule per commit (`commits`) and per-symbol touches (`touches`).

Pure: it receives parsed commits (`patch.iter_commits`) and a `read_blob(blob_id)` callable and
returns Arrow tables. Invariants:

- Attribution: each -U0 hunk's removed lines are resolved on the parent version of the file (the
  old path's blob, so renames are followed) and its added lines on the new version, each line to
  the innermost enclosing symbol of the same chunker `chunk` uses; `<module>` owns the rest.
- File versions come from `spancache.SpanCache`: cached by blob id (a file's parent version is
  usually another commit's child version), and mostly derived across the diff rather than
  parsed; derived spans equal parsed ones (`spans` states when).
- Every text stored (message, subject, the commit's and each touch's diff excerpt) passed the
  redactor whole before it was cut to its bound, so a cut never leaves half a secret behind.
- Output depends only on the set of commits given, never on their order or on how a range was
  split across workers: `finalize` sorts by (commit_time, sha, path, qualname) and derives
  `head_path` / `symbol_id` from the whole history's renames.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
import polars as pl
import pyarrow as pa

from ..store import schemas
from ..store.config import HistoryConfig
from ..store.ids import symbol_id
from ..store.redact import Redactor, redact_text, redact_texts
from .frames import frame
from .intent import (
    classify,
    compile_rules,
    facts_of,
    named_in_subject,
    plain_subject,
    subject_of,
)
from .patch import CommitPatch, FileChange
from .spancache import SpanCache
from .spans import Spans

ReadBlob = Callable[[str], "bytes | None"]
UNPARSED_MODES = frozenset({"120000", "160000"})  # symlinks and submodules have no source

# touches columns produced per worker, before `finalize` adds head_path and symbol_id
_RAW_TOUCH = [f for f in schemas.TOUCHES if f.name not in ("head_path", "symbol_id")]
RAW_TOUCHES = pa.schema(_RAW_TOUCH)


class _Columns:
    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        self.cols: dict[str, list] = {name: [] for name in schema.names}

    def add(self, **row) -> None:
        for name, values in self.cols.items():
            values.append(row[name])

    def table(self) -> pa.Table:
        return pa.table(
            {f.name: _array(self.cols[f.name], f.type) for f in self.schema}, schema=self.schema
        )


def _array(values: list, type_: pa.DataType) -> pa.Array:
    if pa.types.is_timestamp(type_):  # values are unix seconds, whatever unit the schema uses
        return pa.array(values, pa.timestamp("s", tz="UTC")).cast(type_)
    return pa.array(values, type=type_)


def _ranges(hunks, side: str) -> list[tuple[int, int]]:
    if side == "-":
        return [(h.old_start, h.old_count) for h in hunks if h.old_count]
    return [(h.new_start, h.new_count) for h in hunks if h.new_count]


def _count(spans: Spans, ranges: list[tuple[int, int]]) -> dict[int, int]:
    """symbol index -> number of the given lines it owns (lines past the end: `<module>`)."""
    owner, last = spans.owner, len(spans.owner) - 1
    counts: dict[int, int] = {}
    for start, count in ranges:
        stop = start + count
        if stop - 1 > last:
            beyond = stop - max(start, last + 1)
            counts[spans.module] = counts.get(spans.module, 0) + beyond
            stop = last + 1
        if start >= stop:
            continue
        if stop - start <= 32:
            for i in owner[start:stop].tolist():
                counts[i] = counts.get(i, 0) + 1
        else:
            bins = np.bincount(owner[start:stop])
            nz = np.flatnonzero(bins)
            for i, n in zip(nz.tolist(), bins[nz].tolist(), strict=True):
                counts[i] = counts.get(i, 0) + n
    return counts


class _Touch:
    __slots__ = ("kind", "added", "removed", "excerpt", "chars")

    def __init__(self, kind: str | None) -> None:
        self.kind = kind
        self.added = 0
        self.removed = 0
        self.excerpt: list[str] = []
        self.chars = 0


class _Excerpt:
    """The commit-level excerpt: `status path` headers and -/+ lines up to `cap` chars."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[str] = []
        self.chars = 0

    def add(self, line: str) -> None:
        if self.chars < self.cap:
            self.parts.append(line)
            self.chars += len(line) + 1

    def text(self) -> str | None:
        return _joined(self.parts)


def _joined(lines: list[str]) -> str | None:
    """Whole lines joined (None when there are none): an excerpt before `_bounded`."""
    return "\n".join(lines) if lines else None


def _bounded(texts: list[str | None], cap: int, redactor: Redactor | None) -> list[str | None]:
    """Joined excerpts redacted (as one batch), then cut to `cap` characters."""
    return [None if t is None else t[:cap] for t in redact_texts(texts, redactor)]


# characters of joined excerpts held before they are redacted as a batch and cut (an excerpt
# holds whole lines, and one line of a minified file can be long)
_BATCH_CHARS = 4 << 20


class _Pending:
    """The excerpts of a table's column not yet redacted: its tail, from `start`."""

    def __init__(self, column: list, cap: int, redactor: Redactor | None) -> None:
        self.column, self.cap, self.redactor = column, cap, redactor
        self.start = 0
        self.chars = 0

    def added(self) -> None:
        self.chars += len(self.column[-1] or "")
        if self.chars >= _BATCH_CHARS:
            self.flush()

    def flush(self) -> None:
        tail = self.column[self.start :]
        self.column[self.start :] = _bounded(tail, self.cap, self.redactor)
        self.start, self.chars = len(self.column), 0


def attribute(
    fc: FileChange, cache: SpanCache | None
) -> tuple[dict[str | None, _Touch], Spans | None, Spans | None]:
    """qualname -> touch for one file change (the key None is a file-level touch), and the old
    and new versions' spans that were used."""
    old_spans: Spans | None = None
    new_spans: Spans | None = None
    ok = not fc.binary and bool(fc.hunks)
    if ok and (fc.old_mode in UNPARSED_MODES or fc.new_mode in UNPARSED_MODES):
        ok = False
    if cache is None:
        ok = False
    elif ok:
        old_spans, new_spans, ok = cache.pair(fc)
    if not ok:
        whole = _Touch(None)
        whole.added, whole.removed = fc.added, fc.removed
        return {None: whole}, None, None
    touches: dict[str | None, _Touch] = {}
    for spans, side in ((old_spans, "-"), (new_spans, "+")):
        if spans is None:
            continue
        for i, n in _count(spans, _ranges(fc.hunks, side)).items():
            q = spans.qualnames[i]
            t = touches.get(q)
            if t is None:
                t = touches[q] = _Touch(spans.kinds[i])
            if side == "-":
                t.removed += n
            else:
                t.added += n
    return touches, old_spans, new_spans


def _excerpts(fc: FileChange, touches, old_spans, new_spans, cap: int, commit: _Excerpt) -> None:
    """Fill each touch's excerpt (-/+ lines, at most `cap` chars) and feed the commit excerpt.

    A hunk's body is decoded whole and split at its newlines: the same lines as decoding each
    line alone (a newline byte never belongs to a multi-byte character, so an invalid sequence
    before it is replaced the same way), in one call instead of one per line."""
    single = next(iter(touches.values())) if len(touches) == 1 else None
    commit.add(f"{fc.status} {fc.path}")
    for hunk in fc.hunks:
        if commit.chars >= commit.cap and all(t.chars >= cap for t in touches.values()):
            return  # every excerpt is full: the remaining lines are not even decoded
        if not hunk.body:
            continue
        old, new = hunk.old_start, hunk.new_start
        for line in hunk.body.decode("utf-8", "replace").split("\n"):
            # `patch.hunk_lines`' lines: "-" and "+" ones, numbered on their side
            if line[:1] == "-":
                line_no, spans = old, old_spans
                old += 1
            elif line[:1] == "+":
                line_no, spans = new, new_spans
                new += 1
            else:
                continue  # an empty line, `\ No newline at end of file`
            if single is not None:
                t = single
            elif spans is None:
                t = None
            else:
                i = spans.owner[line_no] if line_no < len(spans.owner) else spans.module
                t = touches.get(spans.qualnames[i])
            room = t is not None and t.chars < cap
            if commit.chars >= commit.cap and not room:
                continue
            line = line.rstrip("\r")
            commit.add(line)
            if room:
                assert t is not None
                t.excerpt.append(line)  # whole: cut after redaction, in `_bounded`
                t.chars += len(line) + 1


def build(
    commits: Iterable[CommitPatch],
    read_blob: ReadBlob,
    config: HistoryConfig,
    *,
    parse=None,
    language_of=None,
    stats: dict | None = None,
    full_parse: bool = False,
    redactor: Redactor | None = None,
    hunks: list[pa.Table] | None = None,
) -> tuple[pa.Table, pa.Table]:
    """`commits` and raw touches (without head_path / symbol_id) for the given commits, their
    texts passed through `redactor` (the built-in rules by default); when `hunks` is given,
    the commits' file changes and their hunk headers (`schemas.HUNKS`) are appended to it.

    `full_parse` parses every file version whole instead of deriving most of them: the
    reference the derived attribution must equal (tests and benchmarks compare the two)."""
    cache = SpanCache(read_blob, config, parse, language_of, full_parse=full_parse)
    out_c = _Columns(schemas.COMMITS)
    out_t = _Columns(RAW_TOUCHES)
    out_h = _Columns(schemas.HUNKS) if hunks is not None else None
    rules = compile_rules(config.intent_rules)
    touch_excerpts = _Pending(out_t.cols["excerpt"], config.symbol_excerpt_chars, redactor)
    commit_excerpts = _Pending(out_c.cols["excerpt"], config.excerpt_chars, redactor)
    n = 0
    for c in commits:
        n += 1
        message = redact_text(c.message, redactor) or ""
        intent = classify(message, [facts_of(f) for f in c.files], rules)
        use_cache = cache if len(c.files) <= config.symbol_max_files else None
        commit = _Excerpt(config.excerpt_chars)
        symbols = 0
        for fc in sorted(c.files, key=lambda f: f.path):
            if out_h is not None:
                out_h.add(
                    sha=c.sha,
                    commit_time=c.commit_time,
                    path=fc.path,
                    old_path=fc.old_path,
                    status=fc.status,
                    old_blob=fc.old_blob,
                    new_blob=fc.new_blob,
                    binary=fc.binary,
                    hunks=[
                        x
                        for h in fc.hunks
                        for x in (h.old_start, h.old_count, h.new_start, h.new_count)
                    ],
                )
            touches, old_spans, new_spans = attribute(fc, use_cache)
            _excerpts(fc, touches, old_spans, new_spans, config.symbol_excerpt_chars, commit)
            for qual, t in touches.items():
                symbols += qual is not None
                out_t.add(
                    sha=c.sha,
                    commit_time=c.commit_time,
                    path=fc.path,
                    old_path=fc.old_path if fc.status in "RC" else None,
                    status=fc.status,
                    qualname=qual,
                    kind=t.kind,
                    added=t.added,
                    removed=t.removed,
                    binary=fc.binary,
                    excerpt=_joined(t.excerpt),  # redacted and cut in a batch
                )
                touch_excerpts.added()
        out_c.add(
            sha=c.sha,
            parents=list(c.parents),
            author_name=c.author_name,
            author_email=c.author_email,
            author_time=c.author_time,
            commit_time=c.commit_time,
            subject=subject_of(message),
            message=message.strip(),
            intent=intent.intent,
            reverted_sha=intent.reverted_sha,
            tickets=list(intent.tickets),
            files=len(c.files),
            symbols=symbols,
            added=sum(f.added for f in c.files),
            removed=sum(f.removed for f in c.files),
            bulk=len(c.files) > config.bulk_files,
            excerpt=commit.text(),  # redacted and cut in a batch
        )
        commit_excerpts.added()
    if stats is not None:
        stats["commits"] = stats.get("commits", 0) + n
        stats["parsed_versions"] = stats.get("parsed_versions", 0) + cache.parsed
        stats["parse_cache_hits"] = stats.get("parse_cache_hits", 0) + cache.hits
        stats["derived_versions"] = stats.get("derived_versions", 0) + cache.derived
        stats["spliced_versions"] = stats.get("spliced_versions", 0) + cache.spliced
        stats["near_versions"] = stats.get("near_versions", 0) + cache.near
        stats["recalled_texts"] = stats.get("recalled_texts", 0) + cache.recalled
        stats["read_versions"] = stats.get("read_versions", 0) + cache.read
        stats["rebuilt_versions"] = stats.get("rebuilt_versions", 0) + cache.rebuilt
    if hunks is not None and out_h is not None:
        hunks.append(out_h.table())
    touch_excerpts.flush()
    commit_excerpts.flush()
    return out_c.table(), out_t.table()


# ---------------------------------------------------------------- whole-history step


def finalize_hunks(hunks: Sequence[pa.Table], commits: pa.Table) -> pa.Table:
    """The `hunks` table from partial ones: one row per file change of the kept `commits`,
    sorted by (commit_time, sha, path)."""
    if not hunks:
        return schemas.HUNKS.empty_table()
    df = pl.concat([frame(t.select(schemas.HUNKS.names).cast(schemas.HUNKS)) for t in hunks])
    df = df.unique(subset=["sha", "path", "status", "old_path"], keep="first", maintain_order=True)
    df = df.filter(pl.col("sha").is_in(frame(commits.select(["sha"]))["sha"].implode()))
    return df.sort(["commit_time", "sha", "path"]).to_arrow().cast(schemas.HUNKS)


def finalize(
    commits: Sequence[pa.Table],
    touches: Sequence[pa.Table],
    *,
    max_commits: int | None = None,
) -> tuple[pa.Table, pa.Table]:
    """Merge partial tables (workers, a previous generation plus new commits) into the stage's
    output: deduplicated by sha, sorted, bounded to the newest `max_commits`, with `head_path`
    and `symbol_id` derived from renames over the whole kept history."""
    cdf = pl.concat([frame(t.select(schemas.COMMITS.names)) for t in commits], how="vertical")
    cdf = cdf.unique(subset="sha", keep="first", maintain_order=True).sort(["commit_time", "sha"])
    if max_commits is not None and cdf.height > max_commits:
        cdf = cdf.tail(max_commits)
    cdf = _subject_reverts(cdf)
    raw = [frame(t.select(RAW_TOUCHES.names).cast(RAW_TOUCHES)) for t in touches]
    tdf = pl.concat(raw, how="vertical").unique(
        subset=["sha", "path", "qualname"], keep="first", maintain_order=True
    )
    tdf = tdf.filter(pl.col("sha").is_in(cdf["sha"].implode()))
    tdf = tdf.sort(["commit_time", "sha", "path", "qualname"], nulls_last=False)
    tdf = _with_head_paths(tdf)
    return (
        cdf.to_arrow().cast(schemas.COMMITS),
        tdf.select(schemas.TOUCHES.names).to_arrow().cast(schemas.TOUCHES),
    )


def _subject_reverts(cdf: pl.DataFrame) -> pl.DataFrame:
    """`reverted_sha` of the reverts that name their commit in the subject alone
    (`intent.named_in_subject`): the hash as written, or the newest earlier commit of the kept
    history with that subject (squash-merge numbers ignored on both sides); unresolved ones
    stay null. The history is in time order."""
    todo = cdf.filter((pl.col("intent") == "revert") & pl.col("reverted_sha").is_null())
    if todo.height == 0:
        return cdf
    pending = set(todo["sha"].to_list())
    newest: dict[str, str] = {}  # plain subject -> the newest commit so far with it
    found: dict[str, str] = {}
    for sha, subject in cdf.select("sha", "subject").iter_rows():
        if sha in pending:
            named = named_in_subject(subject or "")
            if named is not None:
                kind, value = named
                target = value if kind == "sha" else newest.get(value)
                if target is not None and not sha.startswith(target):
                    found[sha] = target
        newest[plain_subject(subject or "")] = sha
    if not found:
        return cdf
    resolved = pl.DataFrame(
        {"sha": list(found), "_named": list(found.values())},
        schema={"sha": pl.String, "_named": pl.String},
    )
    return (
        cdf.join(resolved, on="sha", how="left", maintain_order="left")
        .with_columns(pl.coalesce("reverted_sha", "_named").alias("reverted_sha"))
        .drop("_named")
    )


def _with_head_paths(tdf: pl.DataFrame) -> pl.DataFrame:
    """head_path: walk renames newest first; a row at path P in commit c maps through every
    rename made after c (a rename chain or cycle resolves to the path P has at HEAD)."""
    order = tdf.select("sha").unique(maintain_order=True)["sha"].to_list()
    pos = {sha: i for i, sha in enumerate(order)}
    renames = tdf.filter(pl.col("status") == "R").select("sha", "old_path", "path").unique()
    head = tdf["path"]
    if renames.height:
        events: dict[int, list[tuple[str, str]]] = {}
        for sha, old, new in renames.iter_rows():
            events.setdefault(pos[sha], []).append((old, new))
        sources = {old for evs in events.values() for old, _ in evs}
        affected = tdf.with_row_index("_row").filter(pl.col("path").is_in(list(sources)))
        rows_by_commit: dict[int, list[tuple[int, str]]] = {}
        for row, sha, path in affected.select("_row", "sha", "path").iter_rows():
            rows_by_commit.setdefault(pos[sha], []).append((row, path))
        alias: dict[str, str] = {}
        mapped: dict[int, str] = {}
        for p in sorted(set(events) | set(rows_by_commit), reverse=True):
            for row, path in rows_by_commit.get(p, ()):
                mapped[row] = alias.get(path, path)
            for old, new in events.get(p, ()):
                alias[old] = alias.get(new, new)
        if mapped:
            values = head.to_list()
            for row, path in mapped.items():
                values[row] = path
            head = pl.Series("head_path", values, dtype=pl.String)
    tdf = tdf.with_columns(head.alias("head_path"))
    pairs = tdf.filter(pl.col("qualname").is_not_null()).select("head_path", "qualname").unique()
    ids = pairs.with_columns(
        pl.Series(
            "symbol_id",
            [symbol_id(p, q) for p, q in pairs.iter_rows()],
            dtype=pl.String,
        )
    )
    return tdf.join(ids, on=["head_path", "qualname"], how="left", maintain_order="left")
