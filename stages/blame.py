"""The `blame` stage: who wrote each HEAD symbol's lines, and how much of it is load-bearing.

Pure: it receives `git blame --porcelain` output per file (the adapter runs git, with the
repository's ignore-revs list) and the HEAD `symbols` and `commits` tables. Invariants:

- `parse_porcelain` assigns every final line of the file exactly the commit `git blame`
  reports for it (tests compare against git's own line-by-line output).
- A symbol owns every line of its span, nested symbols included; `<module>` covers the file.
- `code_lines` counts only lines with code on them: blank, whitespace-only and comment-only
  lines (and the inside of multi-line strings, docstrings included: the chunker's lexer masks
  them) are ownership but never load-bearing; prose files (Markdown, a changelog, plain-text
  docs: `filekind.is_prose`) have none, so a fix's changelog entry is not load-bearing code.
- `load_bearing_share` = code lines written by bugfix / security / revert commits / the
  symbol's code lines; commits outside the indexed history have no intent and never count.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from ..store import filekind, schemas
from ..store.vocabulary import LOAD_BEARING
from .chunking.source import Source
from .frames import frame


class BlameFormatError(ValueError):
    """The blame output does not have the `--porcelain` shape."""


@dataclass(frozen=True, slots=True)
class FileBlame:
    """Per-line owners of one file at HEAD: `line_commit[i]` indexes `shas` for line i + 1;
    `code[i]` is False for a blank or comment-only line (None: every line counts as code)."""

    path: str
    blob: str
    shas: tuple[str, ...]
    author_times: tuple[int, ...]
    line_commit: np.ndarray  # int32
    code: np.ndarray | None = None  # bool


# text languages whose comments start with `#` (the chunker's lexer covers the code languages)
_HASH_COMMENTS = frozenset({"yaml", "toml", "shell", "dockerfile", "nginx", "make"})
_HASH_LINE = re.compile(r"^[ \t]*(?:#.*)?$")


def code_mask(lines: list[bytes], language: str | None) -> np.ndarray:
    """True for each line holding code: not blank, not whitespace-only, not comment-only."""
    if language in _HASH_COMMENTS:
        return np.array(
            [not _HASH_LINE.match(x.decode("utf-8", "replace")) for x in lines], dtype=bool
        )
    src = Source(b"\n".join(lines), language)
    # the masked text keeps every line break, so its split lines are `Source.masked_line`
    masked = src.masked.split("\n")[: src.n_lines]
    out = np.zeros(len(lines), dtype=bool)
    n = min(len(masked), len(lines))
    out[:n] = [bool(x.strip()) for x in masked[:n]]
    return out


def parse_porcelain(
    data: bytes, path: str = "", blob: str = "", language: str | None = None
) -> FileBlame:
    """Parse `git blame --porcelain` output: per final line a header `<sha> <orig> <final>
    [<count>]`, the commit's metadata the first time it appears, then the line's text after a
    tab. The texts give the code mask (`code_mask`, with the chunker's `language` facts)."""
    lines = data.split(b"\n")
    index: dict[bytes, int] = {}
    times: list[int] = []
    owners: list[tuple[int, int]] = []
    texts: list[bytes] = []
    i, n = 0, len(lines)
    while i < n:
        head = lines[i]
        i += 1
        if not head:
            continue
        parts = head.split(b" ")
        if len(parts) not in (3, 4) or len(parts[0]) < 40:
            raise BlameFormatError(f"bad blame line header: {head[:80]!r}")
        sha = parts[0]
        try:
            final = int(parts[2])
        except ValueError:
            raise BlameFormatError(f"bad blame line header: {head[:80]!r}") from None
        k = index.get(sha)
        if k is None:
            k = index[sha] = len(times)
            times.append(0)
        while i < n and not lines[i].startswith(b"\t"):
            if lines[i].startswith(b"author-time "):
                times[k] = int(lines[i][12:])
            i += 1
        if i >= n:
            raise BlameFormatError("blame line header without the line's text")
        texts.append(lines[i][1:])
        i += 1
        owners.append((final, k))
    owner = np.full(len(owners), -1, dtype=np.int32)
    for final, k in owners:
        if not 1 <= final <= len(owners):
            raise BlameFormatError(f"{path}: blame line {final} out of range")
        owner[final - 1] = k
    if (owner < 0).any():
        raise BlameFormatError(f"{path}: blame left lines without a commit")
    shas = tuple(s.decode("ascii") for s in index)
    ordered = [b""] * len(owners)
    for (final, _), text in zip(owners, texts, strict=True):
        ordered[final - 1] = text
    return _file_blame(path, blob, shas, tuple(times), owner, ordered, language)


def _file_blame(
    path: str,
    blob: str,
    shas: tuple[str, ...],
    times: tuple[int, ...],
    owner: np.ndarray,
    texts: list[bytes],
    language: str | None,
) -> FileBlame:
    code = (
        np.zeros(len(texts), dtype=bool) if filekind.is_prose(path) else code_mask(texts, language)
    )
    return FileBlame(path, blob, shas, times, owner, code)


def git_lines(data: bytes) -> list[bytes]:
    """A file's lines as git counts them: a last line without a line break is a line, a
    trailing line break does not start one."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


@dataclass(frozen=True, slots=True)
class Merge:
    """A merge commit as blame sees it: its parents and, per parent, the paths whose version
    differs from the merge's, each with that parent's blob (None: the parent lacks the path).
    `changed` is None when git did not list a diff for every parent (then nothing is known)."""

    sha: str
    parents: tuple[str, ...]
    changed: tuple[dict[str, str | None], ...] | None
    blobs: dict[str, str]  # path -> the merge's own blob, for the paths some parent differs in
    author_time: int

    def made(self) -> list[tuple[str, str]]:
        """The versions (path, blob) the merge made itself: different from every parent's."""
        if self.changed is None or not self.changed:
            return []
        common = set(self.changed[0]).intersection(*self.changed[1:])
        return [(path, self.blobs[path]) for path in common if path in self.blobs]


# how many commits a walk goes through to find where a version was made (see `_walk`)
_WALK_LIMIT = 200_000
_Node = tuple  # ("row", row) or ("merge", sha, path)


class LineHistory:
    """Who last wrote each line of a HEAD file, followed back through the `hunks` table (the
    -U0 hunk headers of every non-merge commit's diff) and the merges' diffs against each of
    their parents, instead of running `git blame`.

    A version of a file is (path, blob). Its owners follow from the commit that made it, as
    `git blame` passes them: a non-merge commit's added lines are its own, the others are
    carried from the version it changed; a merge's lines go to the first parent in whose
    version they are unchanged (the merge diffed against each), and the rest are the merge's.
    Which commit made a version: the only one that did, when one did; otherwise blame's own
    walk back from the commit the version was seen at, through the parents (at a merge, to
    the first parent with the same version). `owners` returns None, and the caller runs
    `git blame`, where blame may part from that:

    - a change is binary or a type change, or blame may follow a rename or an added file
      otherwise than `git log -M` paired it (`_followed`);
    - a merge lacks the file in a parent (blame looks for a rename there), or its diffs are
      not known (`merge_hunks`);
    - the hunks do not line up, or the lines counted at the end are not the HEAD file's.

    Tests and `benchmarks/blame_speed.py` compare the result with `git blame` line by line."""

    def __init__(
        self,
        hunks: pa.Table,
        parents: dict[str, list[str]],
        merges: dict[str, Merge],
        merge_hunks: dict[tuple[str, str, str], list[int]],
    ) -> None:
        cols = {name: hunks[name].to_pylist() for name in schemas.HUNKS.names}
        self.sha: list[str] = cols["sha"]
        self.path: list[str] = cols["path"]
        self.old_path: list[str | None] = cols["old_path"]
        self.status: list[str] = cols["status"]
        self.old_blob: list[str | None] = cols["old_blob"]
        self.new_blob: list[str | None] = cols["new_blob"]
        self.binary: list[bool] = cols["binary"]
        self.hunks: list[list[int]] = cols["hunks"]
        self.parents = parents  # non-merge commit -> its parents
        self.merges = merges
        self.merge_hunks = merge_hunks  # (merge, parent, path) -> -U0 hunks, parent to merge
        self.commits: dict[str, int] = {}  # sha -> index into `shas`
        self.shas: list[str] = []
        self.producers: dict[tuple[str, str], list[_Node]] = {}
        self.at: dict[tuple[str, str], int] = {}  # (sha, path) -> the row of that change
        # per commit: how many files it added, deleted and renamed, and the blobs its renames
        # and deletions left behind (a rename source blame may pick for another path)
        self.counts: dict[str, Counter[str]] = {}
        self.source_blobs: dict[str, Counter[str]] = {}
        for row, (sha, path, status, old, new) in enumerate(
            zip(self.sha, self.path, self.status, self.old_blob, self.new_blob, strict=True)
        ):
            if sha not in self.counts:
                self.counts[sha] = Counter()
                self.source_blobs[sha] = Counter()
            self.counts[sha][status] += 1
            if status in "DR" and old is not None:
                self.source_blobs[sha][old] += 1
            if new is not None:
                self.at[(sha, path)] = row
            # a mode change keeps the content: the version's producer is the one before
            if new is not None and (new != old or status == "R"):
                self.producers.setdefault((path, new), []).append(("row", row))
        for merge in merges.values():
            for path, blob in merge.made():
                self.producers.setdefault((path, blob), []).append(("merge", merge.sha, path))
        self._memo: dict[_Node, np.ndarray | None] = {}
        # per node, how many nodes of the files `plan` told are made from it: a version's owners
        # are dropped once the last of them is made (a long history's versions would otherwise
        # all be kept, hundreds of megabytes on 100,000 commits); a node dropped and asked for
        # again is made again
        self._uses: Counter[_Node] = Counter()

    def index(self, sha: str) -> int:
        k = self.commits.get(sha)
        if k is None:
            k = self.commits[sha] = len(self.shas)
            self.shas.append(sha)
        return k

    def _followed(self, row: int) -> bool:
        """Whether `git blame` follows the change `row` to the source `git log -M` gave it (a
        rename) or to none (an added file). Blame looks for the best source of one path at a
        time; `log -M` pairs the commit's sources and destinations best first, each once, and
        compares contents only below its rename limit. So they agree on an added file when
        the commit renamed nothing (its deleted files were compared with this one and left
        apart) and compared every pair (a few hundred at most here, under every git's limit),
        and on a rename when it is the commit's only one, or an exact one whose content no
        other source of the commit had."""
        sha, status = self.sha[row], self.status[row]
        counts = self.counts[sha]
        if status == "A":
            return not counts["R"] and counts["D"] * counts["A"] <= _RENAME_PAIRS
        if status == "R":
            old = self.old_blob[row]
            exact = old is not None and old == self.new_blob[row]
            exact = exact and self.source_blobs[sha][old or ""] == 1
            return counts["R"] == 1 or exact
        return True

    def _maker(self, path: str, blob: str, seen_at: str | None) -> _Node | None:
        """The node that made version (path, blob), seen at commit `seen_at`."""
        found = self.producers.get((path, blob))
        if found is not None and len(found) == 1:
            return found[0]  # blame's walk can only end there
        if not found or seen_at is None:
            return None
        return self._walk(path, blob, seen_at)

    def _walk(self, path: str, blob: str, sha: str) -> _Node | None:
        """Blame's walk from commit `sha` back to the commit that made (path, blob): through
        commits that did not change the path, and at a merge to its first parent with the
        same version."""
        for _ in range(_WALK_LIMIT):
            merge = self.merges.get(sha)
            if merge is not None:
                if merge.changed is None:
                    return None
                same = [
                    p for p, ch in zip(merge.parents, merge.changed, strict=True) if path not in ch
                ]
                if not same:
                    return ("merge", sha, path) if merge.blobs.get(path) == blob else None
                sha = same[0]
                continue
            row = self.at.get((sha, path))
            if row is not None and not (self.status[row] == "M" and self.old_blob[row] == blob):
                return ("row", row) if self.new_blob[row] == blob else None
            up = self.parents.get(sha)
            if not up:
                return None  # the walk left the indexed history
            sha = up[0]
        return None

    def plan(
        self, files: Iterable[tuple[str, str]], head: str
    ) -> tuple[list[tuple[str, str]], set[tuple[str, str]]]:
        """Of `files` (path, blob at `head`), the ones whose owners the history can tell once
        the diffs of the merges they go through are known, and those merges' (merge, path):
        the diffs `merge_hunks` must hold."""
        told: list[tuple[str, str]] = []
        needed: set[tuple[str, str]] = set()
        verdict: dict[_Node, bool] = {}
        uses: Counter[_Node] = Counter()  # this file's: counted when it is told
        for path, blob in files:
            root = self._maker(path, blob, head)
            if root is None:
                continue
            merges: set[tuple[str, str]] = set()
            seen: set[_Node] = set()
            stack, ok = [root], True
            while stack and ok:
                node = stack.pop()
                if node in seen:
                    continue
                seen.add(node)
                if verdict.get(node) is False:
                    ok = False
                    break
                if node[0] == "merge":
                    merges.add((node[1], node[2]))
                needs = self._needs(node, need_hunks=False)
                if needs is None:
                    verdict[node] = ok = False
                    break
                for p, b, at in needs:
                    made = self._maker(p, b, at)
                    if made is None:
                        verdict[node] = ok = False
                        break
                    uses[made] += 1
                    stack.append(made)
            if ok:
                told.append((path, blob))
                needed |= merges
                self._uses.update(uses)
            uses.clear()
        return told, needed

    def _needs(
        self, node: _Node, need_hunks: bool = True
    ) -> list[tuple[str, str, str | None]] | None:
        """The versions (path, blob, seen at) a node's owners are made from; None: unknown
        (`need_hunks`: a merge's diffs must be known)."""
        if node[0] == "row":
            row = node[1]
            if self.binary[row] or self.status[row] not in "AMR" or not self._followed(row):
                return None
            old, old_path = self.old_blob[row], self.old_path[row]
            if old is None or old_path is None:
                return [] if self.status[row] == "A" else None
            up = self.parents.get(self.sha[row])
            return [(old_path, old, up[0] if up else None)]
        merge = self.merges[node[1]]
        assert merge.changed is not None
        out: list[tuple[str, str, str | None]] = []
        for parent, changed in zip(merge.parents, merge.changed, strict=True):
            blob = changed.get(node[2])
            if blob is None:
                return None  # the parent lacks the file: blame looks for a rename there
            if need_hunks and (node[1], parent, node[2]) not in self.merge_hunks:
                return None
            out.append((node[2], blob, parent))
        return out

    def _owners_of(self, root: _Node) -> np.ndarray | None:
        """The owners (indexes into `shas`) of the version `root` made, every node below it
        computed first (no recursion: a file may have thousands of versions)."""
        stack: list[tuple[_Node, list[_Node | None] | None]] = [(root, None)]
        while stack:
            node, deps = stack[-1]
            if node in self._memo:
                stack.pop()
                continue
            if deps is None:
                needs = self._needs(node)
                if needs is None:
                    self._memo[node] = None
                    stack.pop()
                    continue
                deps = [self._maker(p, b, at) for p, b, at in needs]
                stack[-1] = (node, deps)
                todo = [d for d in deps if d is not None and d not in self._memo]
                if any(d is None for d in deps):
                    self._memo[node] = None
                    stack.pop()
                    continue
                if len(stack) > len(self.sha) + 2 * len(self.merges) + 2:
                    return None  # a cycle: versions that make each other
                stack.extend((d, None) for d in todo)
                if todo:
                    continue
            dropped = [d for d in deps if d is not None and d not in self._memo]
            if dropped:  # made for another node and dropped since: made again
                stack.extend((d, None) for d in dropped)
                continue
            inputs = [self._memo.get(d) if d is not None else None for d in deps]
            self._memo[node] = None if any(x is None for x in inputs) else self._make(node, inputs)
            stack.pop()
            for d in deps:
                self._used(d)
        return self._memo.get(root)

    def _used(self, node: _Node | None) -> None:
        """One of the nodes made from `node` is made: its owners go when that was the last."""
        if node is None or not self._uses.get(node):
            return
        self._uses[node] -= 1
        if not self._uses[node]:
            del self._uses[node]
            self._memo.pop(node, None)

    def _make(self, node: _Node, inputs: list) -> np.ndarray | None:
        if node[0] == "row":
            row = node[1]
            before = inputs[0] if inputs else np.zeros(0, dtype=np.int32)
            return _replay(before, self.hunks[row], self.index(self.sha[row]))
        sha, path = node[1], node[2]
        merge = self.merges[sha]
        owner: np.ndarray | None = None
        for parent, before in zip(merge.parents, inputs, strict=True):
            hunks = self.merge_hunks[(sha, parent, path)]
            mapped = _unchanged(hunks, len(before))
            if mapped is None:
                return None
            x_lines, p_lines, total = mapped
            if owner is None:
                owner = np.full(total, -1, dtype=np.int32)
            elif len(owner) != total:
                return None
            free = owner[x_lines] < 0
            owner[x_lines[free]] = before[p_lines[free]]
        assert owner is not None
        owner[owner < 0] = self.index(sha)
        return owner

    def owners(self, path: str, blob: str, head: str) -> tuple[np.ndarray, list[str]] | None:
        """Per line of HEAD's version (path, blob): an index into the returned shas (in the
        order their first lines come), or None when blame must decide."""
        node = self._maker(path, blob, head)
        owner = None if node is None else self._owners_of(node)
        if node is not None and node not in self._uses:
            self._memo.pop(node, None)  # no file told is made from this version
        if owner is None:
            return None
        first: dict[int, int] = {}
        for k in owner.tolist():
            if k not in first:
                first[k] = len(first)
        local = np.array([first[k] for k in owner.tolist()], dtype=np.int32)
        return local, [self.shas[k] for k in first]


# source x destination pairs of a commit's added and deleted files below which every git
# compares contents for renames (`diff.renameLimit` is 1000 and was 400, counted in files)
_RENAME_PAIRS = 100 * 100


def _unchanged(hunks: list[int], before: int) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The lines a diff of a version of `before` lines left as they were: their (0-based)
    numbers on the new side and on the old, and the new side's line count; None when the
    hunks do not fit."""
    x: list[np.ndarray] = []
    p: list[np.ndarray] = []
    old_pos = new_pos = 0
    for i in range(0, len(hunks), 4):
        old_start, old_count, new_start, new_count = hunks[i : i + 4]
        gap = (old_start - 1 if old_count else old_start) - old_pos
        if gap < 0 or old_pos + gap + old_count > before:
            return None
        if new_count and new_start != new_pos + gap + 1:
            return None
        x.append(np.arange(new_pos, new_pos + gap))
        p.append(np.arange(old_pos, old_pos + gap))
        old_pos += gap + old_count
        new_pos += gap + new_count
    rest = before - old_pos
    x.append(np.arange(new_pos, new_pos + rest))
    p.append(np.arange(old_pos, before))
    return np.concatenate(x), np.concatenate(p), new_pos + rest


def _replay(owner: np.ndarray, hunks: list[int], commit: int) -> np.ndarray | None:
    """`owner` (per line of a version) carried across one diff's -U0 hunks, whose added lines
    become `commit`'s; None when the hunks do not fit the version."""
    mapped = _unchanged(hunks, len(owner))
    if mapped is None:
        return None
    new_lines, old_lines, total = mapped
    carried = np.full(total, commit, dtype=np.int32)
    carried[new_lines] = owner[old_lines]
    return carried


def from_history(
    history: LineHistory,
    head: str,
    path: str,
    blob: str,
    read: Callable[[str], bytes | None],
    language: str | None,
    author_times: dict[str, int],
) -> FileBlame | None:
    """The blame of HEAD's version (`blob`, read by `read` only when the history tells) of
    `path` from `history`, as `parse_porcelain` gives it from `git blame`; None when the
    history cannot tell (see `LineHistory`)."""
    found = history.owners(path, blob, head)
    if found is None:
        return None
    owner, shas = found
    data = read(blob)
    if data is None:
        return None
    texts = git_lines(data)
    if len(texts) != len(owner) or any(s not in author_times for s in shas):
        return None
    times = tuple(author_times[s] for s in shas)
    return _file_blame(path, blob, tuple(shas), times, owner, texts, language)


def symbol_rows(fb: FileBlame, symbols: pl.DataFrame) -> pl.DataFrame:
    """(symbol_id, qualname, sha, lines, symbol_lines, code_lines, symbol_code_lines,
    author_time) for one file's symbols (`symbols`: symbol_id, qualname, start_line, end_line)."""
    nlines = len(fb.line_commit)
    ncommits = len(fb.shas)
    code = fb.code if fb.code is not None else np.ones(nlines, dtype=bool)
    names = ("symbol_id", "qualname", "k", "lines", "symbol_lines", "code_lines", "symbol_code")
    out: dict[str, list] = {k: [] for k in names}
    for sid, qual, start, end in symbols.select(
        "symbol_id", "qualname", "start_line", "end_line"
    ).iter_rows():
        lo, hi = max(start, 1) - 1, min(end, nlines)
        if hi <= lo:
            continue
        owners = fb.line_commit[lo:hi]
        counts = np.bincount(owners, minlength=ncommits)
        code_counts = np.bincount(owners[code[lo:hi]], minlength=ncommits)
        nz = np.flatnonzero(counts)
        out["symbol_id"] += [sid] * len(nz)
        out["qualname"] += [qual] * len(nz)
        out["k"] += nz.tolist()
        out["lines"] += counts[nz].tolist()
        out["symbol_lines"] += [hi - lo] * len(nz)
        out["code_lines"] += code_counts[nz].tolist()
        out["symbol_code"] += [int(code_counts.sum())] * len(nz)
    df = pl.DataFrame(
        out,
        schema={
            "symbol_id": pl.String,
            "qualname": pl.String,
            "k": pl.Int64,
            "lines": pl.Int32,
            "symbol_lines": pl.Int32,
            "code_lines": pl.Int32,
            "symbol_code": pl.Int32,
        },
    ).rename({"symbol_code": "symbol_code_lines"})
    shas = pl.DataFrame(
        {"k": list(range(ncommits)), "sha": list(fb.shas), "author_time": list(fb.author_times)},
        schema={"k": pl.Int64, "sha": pl.String, "author_time": pl.Int64},
    )
    return (
        df.join(shas, on="k", how="left", maintain_order="left")
        .drop("k")
        .with_columns(pl.lit(fb.path).alias("path"), pl.lit(fb.blob).alias("blob"))
    )


def build(
    blames: Iterable[FileBlame],
    symbols: pa.Table,
    commits: pa.Table,
    reused: pa.Table | None = None,
) -> pa.Table:
    """The `blame` table: new per-file results plus `reused` rows of unchanged files, joined
    with commit intent (recomputed for every row, since the indexed history may have grown)."""
    sdf = frame(symbols.select(["path", "symbol_id", "qualname", "start_line", "end_line"]))
    by_path = sdf.partition_by("path", as_dict=True, include_key=False)
    frames = []
    for fb in blames:
        syms = by_path.get((fb.path,))
        if syms is None or not len(fb.line_commit):
            continue
        frames.append(symbol_rows(fb, syms))
    cols = [
        "path",
        "blob",
        "symbol_id",
        "qualname",
        "sha",
        "lines",
        "symbol_lines",
        "code_lines",
        "symbol_code_lines",
        "author_time",
    ]
    empty: dict[str, type[pl.DataType]] = {c: pl.String for c in cols[:5]}
    empty |= {c: pl.Int32 for c in cols[5:9]} | {"author_time": pl.Int64}
    df = pl.concat([f.select(cols) for f in frames]) if frames else pl.DataFrame(schema=empty)
    if reused is not None and reused.num_rows:
        old = frame(reused.select(cols)).with_columns(pl.col("author_time").dt.epoch("s"))
        df = pl.concat([df, old.cast(df.schema)])
    intents = frame(commits.select(["sha", "intent"]))
    # a fix that only touched blank or comment lines of a symbol does not make it load-bearing
    df = df.join(intents, on="sha", how="left", maintain_order="left").with_columns(
        (
            pl.col("intent").is_in(sorted(LOAD_BEARING)).fill_null(False)
            & (pl.col("code_lines") > 0)
        ).alias("load_bearing")
    )
    share = df.group_by("symbol_id").agg(
        (
            pl.when(pl.col("load_bearing")).then(pl.col("code_lines")).otherwise(0).sum()
            / pl.col("symbol_code_lines").first().clip(lower_bound=1)
        )
        .cast(pl.Float32)
        .alias("load_bearing_share")
    )
    df = df.join(share, on="symbol_id", how="left").sort("path", "symbol_id", "sha")
    table = df.select(schemas.BLAME.names).to_arrow()
    table = table.set_column(
        table.schema.get_field_index("author_time"),
        "author_time",
        table["author_time"]
        .cast(pa.int64())
        .cast(pa.timestamp("s", tz="UTC"))
        .cast(schemas.BLAME.field("author_time").type),
    )
    return pa.table([table[f.name].cast(f.type) for f in schemas.BLAME], schema=schemas.BLAME)
