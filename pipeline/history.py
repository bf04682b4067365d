"""Adapters of the history stages: `capsule`, `blame`, `cochange`.

They own the I/O the pure stages must not do: git subprocesses (streamed `git log`, one
`cat-file --batch` per worker, `git blame --porcelain` per file), the previous generation's
tables for incremental runs, and the process pool that splits a commit range. Invariants:

- `capsule` reads only `last_indexed..HEAD` and appends; when the previous head is no longer an
  ancestor of HEAD (rewritten history) or the history config changed, it rebuilds from scratch.
  Splitting the range across workers never changes the output (the stage sorts).
- `blame` re-blames only files whose blob (or symbol set) changed, unless history was rewritten
  or the ignore-revs list changed; it looks through the commits `.git-blame-ignore-revs` (at
  HEAD) and the repository's `blame.ignoreRevsFile` list (`index.blame_ignore_revs`). For many
  files it first writes a commit-graph with changed-path filters into a temporary object folder
  (never into the repository), which makes each `git blame` skip untouched commits, same answer.
- A git failure mid-stream raises `GitError`, so no half history is ever published.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    ThreadPoolExecutor,
    as_completed,
    wait,
)
from typing import TYPE_CHECKING, TypeVar

import pyarrow as pa
import pyarrow.compute as pc

from ..stages import blame as blame_stage
from ..stages import capsule as capsule_stage
from ..stages import cochange as cochange_stage
from ..stages.patch import LOG_ARGS, iter_commits
from ..store import gitdefaults, schemas
from ..store.config import HistoryConfig, RedactionConfig
from ..store.errors import GitError
from ..store.redact import placeholder_counts, redactor_for
from .executor import local_pool, pool_context
from .gitio import BlobReader, Git, git_env
from .stage import Stage, StageContext, StageResult

if TYPE_CHECKING:
    from .executor import Executor

READ_SIZE = 1 << 20


# ---------------------------------------------------------------- git plumbing


def rev_list(
    git: Git, head: str, *, exclude: str | None = None, max_count: int | None = None
) -> list[str]:
    """Non-merge commits reachable from `head` (not from `exclude`), newest first."""
    args = ["rev-list", "--no-merges"]
    if max_count is not None:
        args.append(f"--max-count={max_count}")
    args.append(head)
    if exclude is not None:
        args.append(f"^{exclude}")
    return git.run(*args).split()


def stream_log(git: Git, shas: Sequence[str]) -> Generator[bytes, None, None]:
    """Stdout of `git log LOG_ARGS` for exactly `shas`, in 1 MiB chunks; GitError when git
    fails, including after it started writing."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [git.exe, *LOG_ARGS, "--no-walk=unsorted", "--stdin"],
            cwd=git.root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            env=git_env(),
        )
        # A buffered pipe (the default bufsize) is an `io.BufferedReader`, which has `read1`:
        # take what is ready instead of waiting for a full READ_SIZE block.
        assert proc.stdin is not None and isinstance(proc.stdout, io.BufferedReader)
        finished = False
        try:
            try:
                # git reads all of stdin before it writes anything, so this cannot deadlock.
                proc.stdin.write("".join(f"{s}\n" for s in shas).encode("ascii"))
                proc.stdin.close()
            except BrokenPipeError:
                pass
            while chunk := proc.stdout.read1(READ_SIZE):
                yield chunk
            finished = True
        finally:
            proc.stdout.close()
            if not finished and proc.poll() is None:
                proc.kill()
            rc = proc.wait()
        if rc != 0:
            err.seek(0)
            lines = err.read().decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git log failed mid-stream: {lines[-1] if lines else f'exit {rc}'}")


# ---------------------------------------------------------------- capsule


def extract(item: tuple) -> tuple[pa.Table, pa.Table, dict, pa.Table]:
    """One worker's share: commits, raw touches and hunks of `shas` (module-level: picklable). `item`
    is (root, shas, config), optionally followed by full_parse, the redaction config and the
    share's slot in the pool's shared table (see `_Shares`), through which an idle worker may
    take the older part of the range this one has not begun."""
    root, shas, cfg, *rest = item
    full_parse = bool(rest and rest[0])
    redactor = redactor_for(rest[1] if len(rest) > 1 else None)
    slot = rest[2] if len(rest) > 2 else None
    cpu = _cpu()
    git = Git(root)
    stats: dict = {}
    hunks: list[pa.Table] = []
    with BlobReader(git) as reader:
        log = stream_log(git, shas)
        try:
            commits = iter_commits(log, text_cap=cfg.patch_text_bytes)
            if slot is not None and _SHARED is not None:
                commits = _SHARED.claimed(slot, commits)
            c, t = capsule_stage.build(
                commits,
                reader.read,
                cfg,
                stats=stats,
                full_parse=full_parse,
                redactor=redactor,
                hunks=hunks,
            )
        finally:
            log.close()  # a share given up early stops its `git log`
    stats["cpu_seconds"] = _cpu() - cpu  # a pool worker's CPU is not its parent's to measure
    return c, t, stats, hunks[0]


_T = TypeVar("_T")


class _Shares:
    """Where each share of a split range stands, in memory the pool's processes share: how many
    of its commits its worker has begun, and its limit (it begins none at or past it). A worker
    claims each commit under the lock; the parent lowers a running share's limit under the same
    lock and gives the commits past it to an idle worker, so every commit is begun exactly
    once, whichever side gets there first."""

    def __init__(self, context, slots: int) -> None:
        self.lock = context.Lock()
        self.begun = context.Array("q", slots, lock=False)
        self.limit = context.Array("q", slots, lock=False)

    def claimed(self, slot: int, commits: Iterable[_T]) -> Iterator[_T]:
        """`commits` while this share's limit allows the next one."""
        for i, commit in enumerate(commits):
            with self.lock:
                if i >= self.limit[slot]:
                    return
                self.begun[slot] = i + 1
            yield commit

    def left(self, slot: int) -> int:
        """Commits of `slot` not begun yet (a read without the lock: a hint)."""
        return self.limit[slot] - self.begun[slot]

    def take_half(self, slot: int, least: int) -> tuple[int, int] | None:
        """Lower `slot`'s limit to the middle of what it has not begun, and return (middle,
        old limit): the offsets of the commits that are now another worker's; None when fewer
        than `least` are left."""
        with self.lock:
            begun, limit = self.begun[slot], self.limit[slot]
            if limit - begun < least:
                return None
            middle = begun + (limit - begun) // 2
            self.limit[slot] = middle
            return middle, limit


_SHARED: _Shares | None = None  # in a capsule pool worker


def _share_table(shares: _Shares) -> None:
    global _SHARED
    _SHARED = shares


def _cpu() -> float:
    """CPU seconds of this process and of its children that ended (git log, cat-file)."""
    try:
        import resource
    except ImportError:  # not on POSIX: this process only
        return time.process_time()
    own, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def split(shas: Sequence[str], parts: int) -> list[list[str]]:
    size = -(-len(shas) // parts)
    return [list(shas[i : i + size]) for i in range(0, len(shas), size)]


def extract_all(
    git: Git,
    shas: Sequence[str],
    cfg: HistoryConfig,
    *,
    workers: int,
    progress=None,
    full_parse: bool = False,
    redaction: RedactionConfig | None = None,
    executor: Executor | None = None,
    hunks: list[pa.Table] | None = None,
) -> tuple[list[pa.Table], list[pa.Table], dict]:
    """Extract `shas`, split into contiguous ranges over a local process pool when large, or
    over a distributed `executor`'s workers (`full_parse`: the reference attribution, every file
    version parsed; `hunks`: where each range's `schemas.HUNKS` table is appended). The split
    never changes the output."""
    distributed = executor is not None and executor.distributed
    if distributed:
        assert executor is not None
        workers = executor.jobs
    parts = max(1, min(workers, len(shas) // cfg.commits_per_worker))
    items = (
        [(str(git.root), chunk, cfg, full_parse, redaction) for chunk in split(shas, parts)]
        if shas
        else []
    )
    cs, ts, stats = [], [], {"workers": parts}

    def add(result: tuple[pa.Table, pa.Table, dict, pa.Table]) -> None:
        c, t, s, h = result
        cs.append(c)
        ts.append(t)
        if hunks is not None:
            hunks.append(h)
        for k, v in s.items():
            stats[k] = stats.get(k, 0) + v
        if progress is not None:
            progress.advance(s.get("commits", 0))

    if distributed:
        assert executor is not None
        for result in executor.map_units(extract, items):
            add(result)
    elif parts == 1:
        for item in items:
            add(extract(item))
    else:
        # a share's worker parses each file it touches from scratch: worth it for a long rest
        # only (`share_commits`)
        stats["shared_ranges"] = _extract_shared(items, parts, cfg.share_commits, add)
    return cs, ts, stats


def _extract_shared(items: list[tuple], parts: int, least: int, add) -> int:
    """`extract` of `items` on a pool of `parts` processes; a worker left idle takes the older
    half of the range another has not begun (when at least `least` commits are left there), so
    no core waits for one long range. Returns how many ranges were shared."""
    context = pool_context()
    shares = _Shares(context, 2 * parts + 64)
    pool = local_pool(parts, _share_table, (shares,))
    running: dict = {}  # future -> slot
    units: list[tuple] = []  # by slot

    def submit(item: tuple) -> None:
        slot = len(units)
        units.append(item)
        shares.begun[slot], shares.limit[slot] = 0, len(item[1])
        running[pool.submit(extract, (*item, slot))] = slot

    shared = 0
    try:
        for item in items:
            submit(item)
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                del running[future]
                add(future.result())
            while running and len(running) < parts and len(units) < len(shares.limit):
                # the running range with the most commits not begun gives its older half
                slot = max(running.values(), key=shares.left)
                taken = shares.take_half(slot, least)
                if taken is None:
                    break
                root, shas, *rest = units[slot]
                submit((root, shas[taken[0] : taken[1]], *rest))
                shared += 1
    finally:
        pool.shutdown(cancel_futures=True)
    return shared


def _config_key(ctx: StageContext) -> str:
    payload = {
        "history": ctx.config.history.fingerprint_payload(),
        "max": ctx.config.index.max_commits,
        "redaction": ctx.config.redaction.fingerprint_payload(),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def run_capsule(ctx: StageContext) -> StageResult:
    cfg = ctx.config.history
    max_commits = ctx.config.index.max_commits
    state = ctx.previous_state
    key = _config_key(ctx)
    prev_c, prev_t = ctx.previous("commits"), ctx.previous("touches")
    prev_h = ctx.previous("hunks")
    old_head = state.get("head")
    mode = "full"
    if (
        prev_c is not None
        and prev_t is not None
        and prev_h is not None
        and old_head
        and state.get("config") == key
    ):
        if old_head == ctx.head:
            mode = "unchanged"
        elif ctx.git.has_commit(old_head) and ctx.git.is_ancestor(old_head, ctx.head):
            mode = "incremental"
        else:
            mode = "rewritten"
    if mode == "unchanged":
        assert prev_c is not None and prev_t is not None and prev_h is not None
        commits, touches, hunks = prev_c, prev_t, prev_h
        new = 0
        xstats: dict = {}
    else:
        exclude = old_head if mode == "incremental" else None
        shas = rev_list(ctx.git, ctx.head, exclude=exclude, max_count=max_commits)
        hs: list[pa.Table] = []
        with ctx.progress.task("capsule: commits", total=len(shas)) as task:
            cs, ts, xstats = extract_all(
                ctx.git,
                shas,
                cfg,
                workers=ctx.jobs,
                progress=task,
                redaction=ctx.config.redaction,
                executor=ctx.executor,
                hunks=hs,
            )
        if mode == "incremental":
            assert prev_c is not None and prev_t is not None and prev_h is not None
            cs.insert(0, prev_c)
            ts.insert(0, prev_t.select(capsule_stage.RAW_TOUCHES.names))
            hs.insert(0, prev_h)
        if not cs:
            cs, ts = [schemas.COMMITS.empty_table()], [capsule_stage.RAW_TOUCHES.empty_table()]
        commits, touches = capsule_stage.finalize(cs, ts, max_commits=max_commits)
        hunks = capsule_stage.finalize_hunks(hs, commits)
        new = len(shas)
    times = commits["commit_time"]
    first = commits["sha"][0].as_py() if commits.num_rows else None
    stats = {
        "mode": mode,
        "commits": commits.num_rows,
        "new_commits": new,
        "touches": touches.num_rows,
        "bulk_commits": int(pc.sum(commits["bulk"]).as_py() or 0),
        "shallow": ctx.git.is_shallow(),
        **{k: v for k, v in xstats.items() if k != "commits"},
        "redactions": {
            "commits": placeholder_counts(commits, ("message", "excerpt")),
            "touches": placeholder_counts(touches, ("excerpt",)),
        },
    }
    state_out = {
        "head": ctx.head,
        "config": key,
        "indexed_range": {
            "history_commits": commits.num_rows,
            "history_oldest": first,
            "history_oldest_time": str(pc.min(times).as_py()) if commits.num_rows else None,
            "history_shallow": stats["shallow"],
            "history_boundary": ctx.git.shallow_boundary() if stats["shallow"] else [],
        },
    }
    return StageResult(
        tables={"commits": commits, "touches": touches, "hunks": hunks},
        state=state_out,
        stats=stats,
    )


# ---------------------------------------------------------------- blame


IGNORE_REVS_FILE = ".git-blame-ignore-revs"
_FULL_OID = re.compile(r"[0-9a-fA-F]{40}(?:[0-9a-fA-F]{24})?")


def parse_ignore_revs(text: bytes) -> list[str]:
    """Full object names of an ignore-revs file (`#` comments and blank lines skipped); the
    abbreviated or malformed entries git itself would refuse are dropped."""
    out = []
    for raw in text.decode("utf-8", "replace").splitlines():
        word = raw.split("#", 1)[0].strip()
        if _FULL_OID.fullmatch(word):
            out.append(word.lower())
    return out


def ignore_revs(git: Git, head: str) -> tuple[list[str], str]:
    """The commits `.git-blame-ignore-revs` at HEAD's root lists, and a fingerprint that also
    covers the files `blame.ignoreRevsFile` names (git applies those itself when it blames)."""
    revs = parse_ignore_revs(
        git.run_bytes("cat-file", "blob", f"{head}:{IGNORE_REVS_FILE}", check=False)
    )
    digest = hashlib.sha256("\n".join(revs).encode())
    for value in git.run("config", "--get-all", "blame.ignoreRevsFile", check=False).splitlines():
        digest.update(value.encode("utf-8", "surrogateescape"))
        try:
            digest.update((git.root / os.path.expanduser(value)).read_bytes())
        except OSError:
            pass  # git names the missing file itself when it blames
    return revs, digest.hexdigest()[:16]


def supports_ignore_revs(git: Git) -> bool:
    """`git blame --ignore-revs-file` exists from git 2.23 on."""
    return _supports_ignore_revs(git.exe)


@functools.lru_cache(maxsize=8)
def _supports_ignore_revs(exe: str) -> bool:
    version = subprocess.run([exe, "version"], capture_output=True, env=git_env(), check=False)
    found = re.search(r"(\d+)\.(\d+)", version.stdout.decode("ascii", "replace"))
    return found is not None and (int(found[1]), int(found[2])) >= (2, 23)


# below this many files to blame, writing the commit-graph costs more than it saves
BLAME_GRAPH_MIN_FILES = 32


def blame_graph_env(git: Git, head: str, folder: str) -> dict[str, str] | None:
    """An environment in which `git blame` reads a commit-graph with changed-path Bloom filters
    for `head`'s history, written into `folder` with the repository's objects as an alternate,
    so the repository itself is left untouched. Without the filters blame diffs the trees of
    every commit in the history for each file; git uses them only to skip commits that did not
    touch the path, so the answer is the same. None when this git cannot write them (before
    2.27) or will not (shallow clones, grafts)."""
    objects = git.root / git.run("rev-parse", "--git-path", "objects").strip()
    for sub in ("info", "pack"):
        os.makedirs(os.path.join(folder, sub), exist_ok=True)
    env = git_env()
    alternates = [str(objects)]
    if env.get("GIT_ALTERNATE_OBJECT_DIRECTORIES"):
        alternates.append(env["GIT_ALTERNATE_OBJECT_DIRECTORIES"])
    env["GIT_OBJECT_DIRECTORY"] = folder
    env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = os.pathsep.join(alternates)
    proc = subprocess.run(
        [git.exe, "commit-graph", "write", "--stdin-commits", "--changed-paths"],
        cwd=git.root,
        input=f"{head}\n".encode(),
        capture_output=True,
        env=env,
    )
    if proc.returncode != 0 or not os.path.exists(os.path.join(folder, "info", "commit-graph")):
        return None
    return env


def blame_file(
    git: Git,
    path: str,
    blob: str,
    head: str,
    *,
    language: str | None = None,
    ignore_file: str | None = None,
    honour_config: bool = False,
    env: dict[str, str] | None = None,
    config_files: Sequence[str] | None = None,
) -> blame_stage.FileBlame:
    """One file's blame at `head`. With `honour_config`, the files `blame.ignoreRevsFile` names
    are looked through too (`config_files`, else `Git.blame_ignore_files`'s), those that exist:
    git itself stops on a missing one; `ignore_file` adds a list of commits to look through;
    `env` is `blame_graph_env`'s."""
    # the diffs the history's hunks were made with (`patch.LOG_ARGS`)
    args = [*gitdefaults.BLAME, "blame", "--porcelain", "--no-textconv"]
    if supports_ignore_revs(git):
        # the configured files are dropped, then named again when honoured and present (an
        # empty `-c blame.ignoreRevsFile=` left them applied)
        args.append("--no-ignore-revs-file")
        if honour_config:
            for name in git.blame_ignore_files()[0] if config_files is None else config_files:
                args += ["--ignore-revs-file", name]
    if ignore_file is not None:
        args += ["--ignore-revs-file", ignore_file]
    args += [head, "--", path]
    if env is None:
        out = git.run_bytes(*args)
    else:
        proc = subprocess.run([git.exe, *args], cwd=git.root, capture_output=True, env=env)
        if proc.returncode != 0:
            msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git blame failed: {msg[-1] if msg else f'exit {proc.returncode}'}")
        out = proc.stdout
    return blame_stage.parse_porcelain(out, path, blob, language)


# bytes of git output the history reads at most for the merges (their file lists, their diffs):
# a history of many large merges goes to `git blame` instead of filling memory
MERGE_OUTPUT_CAP = 64 << 20


def _capped(git: Git, args: list[str], input: bytes | None = None) -> bytes | None:
    """Stdout of `git args`, or None when git fails or writes more than `MERGE_OUTPUT_CAP`."""
    with tempfile.TemporaryFile() as fed:
        if input is not None:
            fed.write(input)
            fed.seek(0)
        proc = subprocess.Popen(
            [git.exe, *args],
            cwd=git.root,
            stdin=fed if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=git_env(),
        )
        assert proc.stdout is not None
        chunks: list[bytes] = []
        size = 0
        while chunk := proc.stdout.read(1 << 20):
            size += len(chunk)
            if size > MERGE_OUTPUT_CAP:
                proc.kill()
                proc.wait()
                return None
            chunks.append(chunk)
        return b"".join(chunks) if proc.wait() == 0 else None


def merge_history(git: Git, head: str) -> dict[str, blame_stage.Merge] | None:
    """Every merge in `head`'s history as blame sees it (`blame_stage.Merge`): its diffs
    against each parent, from `git log -m --raw` (tree comparisons, no contents read); None
    when that is over `MERGE_OUTPUT_CAP`."""
    out = _capped(
        git,
        [
            # `-m` shows each merge in `log.diffMerges`'s format: against every parent here
            "-c", "log.showSignature=false", "-c", "log.diffMerges=separate", *gitdefaults.CONFIG,
            "log", "--merges", "-m", "--raw", "--no-renames", "--no-abbrev", *gitdefaults.DIFF,
            "-z", "--format=%x01%H %at %T %P", head,
        ],
    )  # fmt: skip
    if out is None:
        return None
    found: dict[str, tuple[list[str], int, list[dict[str, str | None]], dict[str, str]]] = {}
    trees: dict[str, str] = {}
    diff: dict[str, str | None] | None = None
    blobs: dict[str, str] = {}
    tokens = out.split(b"\0")
    i = 0
    while i < len(tokens):
        token = tokens[i].lstrip(b"\n")
        i += 1
        if token.startswith(b"\x01"):
            sha, when, tree, *parents = token[1:].decode("ascii").split()
            if sha not in found:
                found[sha] = (parents, int(when), [], {})
                trees[sha] = tree
            diff, blobs = {}, found[sha][3]
            found[sha][2].append(diff)
        elif token.startswith(b":") and diff is not None and i < len(tokens):
            fields = token.split(b" ")
            old, new = fields[2].decode("ascii"), fields[3].decode("ascii")
            path = tokens[i].decode("utf-8", "replace")
            i += 1
            diff[path] = None if set(old) == {"0"} else old
            if set(new) != {"0"}:
                blobs[path] = new
    # git lists no diff against a parent whose tree is the merge's: find those parents
    short = [sha for sha, (parents, _, diffs, _) in found.items() if len(diffs) < len(parents)]
    if short:
        lines = git.run("-c", "log.showSignature=false", "log", "--format=%H %T", head).split("\n")
        trees.update(line.split(" ", 1) for line in lines if " " in line)  # type: ignore[misc]
    merges = {}
    for sha, (parents, at, diffs, made) in found.items():
        if len(diffs) < len(parents):
            same = [trees.get(p) == trees[sha] for p in parents]
            if len(parents) - sum(same) == len(diffs):
                listed = iter(diffs)
                diffs = [{} if s else next(listed) for s in same]
        known = tuple(diffs) if len(diffs) == len(parents) else None
        merges[sha] = blame_stage.Merge(sha, tuple(parents), known, made, at)
    return merges


def merge_hunks(
    git: Git, merges: dict[str, blame_stage.Merge], needed: set[tuple[str, str]]
) -> dict[tuple[str, str, str], list[int]]:
    """(merge, parent, path) -> the -U0 hunk headers of the diff from the parent's version of
    `path` to the merge's, for the (merge, path) `needed` (one `git diff-tree --stdin` for
    all). Empty when the output does not line up."""
    wanted = sorted({(sha, parent) for sha, _ in needed for parent in merges[sha].parents})
    if not wanted:
        return {}
    made = sorted({path for _, path in needed})
    patch = _capped(
        git,
        [
            "-c", "core.quotePath=false", *gitdefaults.CONFIG, "--literal-pathspecs",
            "diff-tree", "--stdin", "-r", "-p", "-U0", *gitdefaults.DIFF, "--no-renames",
            "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/",
            "--", *made,
        ],
        input="".join(f"{m} {p}\n" for m, p in wanted).encode(),
    )  # fmt: skip
    if patch is None:
        return {}
    out: dict[tuple[str, str, str], list[int]] = {}
    pending = iter(wanted)
    current: tuple[str, str] | None = None
    path: str | None = None
    # only the lines that name a request, a file or a hunk: a body line starts with + or -
    for m in _PATCH_HEADS.finditer(patch):
        oid, header, binary, a, b, c, d = m.groups()
        if binary is not None:
            if path is not None and current is not None:
                del out[(*current, path)]  # no lines to follow: `git blame` tells
            path = None
        elif oid is not None:
            current = next(pending, None)
            if current is None or current[0] != oid.decode("ascii"):
                return {}
            path = None
        elif header is not None:
            # `a/P b/P` (no renames): P is the first half; a quoted name is not read (its
            # file's hunks are then not kept, and `git blame` tells it)
            half = (len(header) - 5) // 2
            same = header[:2] == b"a/" and header[2 + half : 5 + half] == b" b/"
            same = same and header[2 : 2 + half] == header[5 + half :]
            path = header[2 : 2 + half].decode("utf-8", "replace") if same else None
            if path is not None and current is not None:
                out[(*current, path)] = []
        elif path is not None and current is not None:
            out[(*current, path)] += [
                int(a), 1 if b is None else int(b), int(c), 1 if d is None else int(d)
            ]  # fmt: skip
    return out


_PATCH_HEADS = re.compile(
    rb"^(?:([0-9a-f]{40}(?:[0-9a-f]{24})?)|diff --git (.*)|(Binary files .*)"
    rb"|@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@.*)$",
    re.M,
)


def line_history(
    git: Git, head: str, hunks: pa.Table, commits: pa.Table
) -> tuple[blame_stage.LineHistory, dict[str, int]] | None:
    """The `LineHistory` of `head`, its merges' diffs not read yet (`history_blames` reads
    those its files need), and every commit's author time (unix seconds), merges included;
    None when the merges are too many to read (`merge_history`)."""
    merges = merge_history(git, head)
    if merges is None:
        return None
    history = blame_stage.LineHistory(
        hunks,
        dict(zip(commits["sha"].to_pylist(), commits["parents"].to_pylist(), strict=True)),
        merges,
        {},
    )
    seconds = pc.divide(commits["author_time"].cast(pa.int64()), 1000).to_pylist()
    times = dict(zip(commits["sha"].to_pylist(), seconds, strict=True))
    times.update((m.sha, m.author_time) for m in merges.values())
    return history, times


def history_blames(
    git: Git,
    head: str,
    history: blame_stage.LineHistory,
    times: dict[str, int],
    files: list[tuple[str, str, str | None]],
    needed: set[tuple[str, str]],
) -> Iterator[tuple[tuple[str, str, str | None], blame_stage.FileBlame | None]]:
    """Each of `files` (path, blob, language) with its blame from `history`, or None when
    `git blame` must tell (`needed`: the merges' diffs to read first, see `LineHistory.plan`)."""
    history.merge_hunks = merge_hunks(git, history.merges, needed)
    with BlobReader(git) as reader:
        for path, blob, language in files:
            fb = blame_stage.from_history(history, head, path, blob, reader.read, language, times)
            yield (path, blob, language), fb


def _derivable(ctx: StageContext, revs: list[str], honour: bool) -> bool:
    """Whether blame may be read from the history: nothing to look through (no ignore list of
    the index's, none of the repository's own git config when git applies it), and a history
    that is whole (not shallow, not cut at `index.max_commits`: a version made again before the
    cut would be taken for the one made after it)."""
    index = ctx.config.index
    if not index.blame_from_history or revs or index.max_commits or ctx.git.is_shallow():
        return False
    return not (honour and ctx.git.blame_ignore_files()[0])


BLAME_FILES_PER_UNIT = 64
# below this many files to blame (an incremental run) `git blame` is cheaper than reading the
# history: loading it took 0.1-0.4 s on the shared bundles, one file's `git blame` 0.05-0.2 s
HISTORY_MIN_FILES = 16


def _batches(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def write_ignore_revs(folder: str, revs: Sequence[str]) -> str | None:
    """`revs` as a `--ignore-revs-file` in `folder` (None when there are none)."""
    if not revs:
        return None
    path = os.path.join(folder, "ignore-revs")
    with open(path, "w", encoding="ascii") as fh:
        fh.write("".join(f"{r}\n" for r in revs))
    return path


def blame_unit(unit: tuple) -> list[blame_stage.FileBlame]:
    """A distributed worker's share of blame: (root, head, [(path, blob, language)], ignored
    revisions, honour the repository's own ignore file). Module-level: picklable."""
    root, head, files, revs, honour = unit
    git = Git(root)
    config_files = git.blame_ignore_files()[0] if honour else []
    with tempfile.TemporaryDirectory(prefix="gitstrata-blame-") as tmp:
        ignore_file = write_ignore_revs(tmp, revs)
        return [
            blame_file(
                git,
                path,
                blob,
                head,
                language=language,
                ignore_file=ignore_file,
                honour_config=honour,
                config_files=config_files,
            )
            for path, blob, language in files
        ]


def run_blame(ctx: StageContext) -> StageResult:
    files, symbols, commits = ctx.input("files"), ctx.input("symbols"), ctx.input("commits")
    if not ctx.config.index.blame:
        return StageResult(tables={"blame": schemas.BLAME.empty_table()}, stats={"disabled": True})
    honour = ctx.config.index.blame_ignore_revs and supports_ignore_revs(ctx.git)
    revs, revs_key = ignore_revs(ctx.git, ctx.head) if honour else ([], "off")
    with_symbols = set(pc.unique(symbols["path"]).to_pylist())
    todo: list[tuple[str, str, str | None]] = []
    reused_paths: list[str] = []
    prev = ctx.previous("blame")
    prev_head = ctx.previous_head
    if prev is not None and prev_head and not ctx.git.is_ancestor(prev_head, ctx.head):
        prev = None  # rewritten history: old attributions may name commits that are gone
    if prev is not None and ctx.previous_state.get("ignore_revs") != revs_key:
        prev = None  # another ignore list moves ownership in every file
    prev_keys = _blame_keys(prev) if prev is not None else {}
    head_keys = _symbol_keys(symbols)
    unblamable = 0
    for path, blob, status, language in zip(
        files["path"].to_pylist(),
        files["blob"].to_pylist(),
        files["status"].to_pylist(),
        files["language"].to_pylist(),
        strict=True,
    ):
        if status != "indexed" or path not in with_symbols:
            continue
        if "\ufffd" in path:
            unblamable += 1  # the stored path is not the file's real (non-UTF-8) name
            continue
        if prev_keys.get(path) == (blob, head_keys.get(path)):
            reused_paths.append(path)
        else:
            todo.append((path, blob, language))
    reused = None
    if prev is not None and reused_paths:
        reused = prev.filter(pc.is_in(prev["path"], value_set=pa.array(reused_paths, pa.string())))

    # the files the history can tell are read from it (`LineHistory`), beside `git blame` of
    # the others
    told: list[tuple[str, str, str | None]] = []
    needed: set[tuple[str, str]] = set()
    history: blame_stage.LineHistory | None = None
    times: dict[str, int] = {}
    read = None
    if len(todo) >= HISTORY_MIN_FILES and _derivable(ctx, revs, honour):
        read = line_history(ctx.git, ctx.head, ctx.input("hunks"), ctx.input("commits"))
    if read is not None:
        history, times = read
        tellable, needed = history.plan([(path, blob) for path, blob, _ in todo], ctx.head)
        keep = set(tellable)
        told = [item for item in todo if (item[0], item[1]) in keep]
        todo = [item for item in todo if (item[0], item[1]) not in keep]
    with tempfile.TemporaryDirectory(prefix="gitstrata-blame-") as tmp:
        ignore_file = write_ignore_revs(tmp, revs)
        env = None
        if len(todo) >= BLAME_GRAPH_MIN_FILES and not ctx.executor.distributed:
            env = blame_graph_env(ctx.git, ctx.head, os.path.join(tmp, "objects"))

        config_files = ctx.git.blame_ignore_files()[0] if honour else []

        def one(item: tuple[str, str, str | None]) -> blame_stage.FileBlame:
            path, blob, language = item
            return blame_file(
                ctx.git,
                path,
                blob,
                ctx.head,
                language=language,
                ignore_file=ignore_file,
                honour_config=honour,
                env=env,
                config_files=config_files,
            )

        results: list[blame_stage.FileBlame] = []
        derived = 0
        with ctx.progress.task("blame: files", total=len(todo) + len(told)) as task:

            def read_history(missed: Callable[[tuple[str, str, str | None]], object]) -> None:
                """The told files' blames from the history; a file it cannot tell after all
                goes to `todo` and to `missed`."""
                if history is None:
                    return
                for item, fb in history_blames(ctx.git, ctx.head, history, times, told, needed):
                    if fb is None:
                        todo.append(item)
                        missed(item)
                    else:
                        results.append(fb)
                        task.advance()

            if ctx.executor.distributed:
                read_history(lambda item: None)
                # workers elsewhere cannot see this host's temporary commit-graph; blame's
                # output is the same without it
                units = [
                    (str(ctx.git.root), ctx.head, batch, revs, honour)
                    for batch in _batches(todo, BLAME_FILES_PER_UNIT)
                ]
                for part in ctx.executor.map_units(blame_unit, units):
                    results.extend(part)
                    task.advance(len(part))
            else:
                with ThreadPoolExecutor(max_workers=max(1, ctx.jobs)) as pool:
                    # git blame runs in the pool while this thread reads the history
                    running = [pool.submit(one, item) for item in todo]
                    read_history(lambda item: running.append(pool.submit(one, item)))
                    for future in as_completed(running):
                        results.append(future.result())
                        task.advance()
            derived = len(results) - len(todo)
    table = blame_stage.build(results, symbols, commits, reused)
    stats = {
        "files": len(todo) + derived + len(reused_paths),
        "from_history": derived,
        "blamed": len(todo),
        "reused": len(reused_paths),
        "unblamable_paths": unblamable,
        "ignored_revs": len(revs),
        "commit_graph": env is not None,
        "rows": table.num_rows,
    }
    return StageResult(tables={"blame": table}, state={"ignore_revs": revs_key}, stats=stats)


def _blame_keys(prev: pa.Table) -> dict[str, tuple[str, frozenset[str]]]:
    keys: dict[str, tuple[str, set[str]]] = {}
    for path, blob, sid in zip(
        prev["path"].to_pylist(),
        prev["blob"].to_pylist(),
        prev["symbol_id"].to_pylist(),
        strict=True,
    ):
        keys.setdefault(path, (blob, set()))[1].add(sid)
    return {p: (b, frozenset(s)) for p, (b, s) in keys.items()}


def _symbol_keys(symbols: pa.Table) -> dict[str, frozenset[str]]:
    keys: dict[str, set[str]] = {}
    for path, sid in zip(
        symbols["path"].to_pylist(), symbols["symbol_id"].to_pylist(), strict=True
    ):
        keys.setdefault(path, set()).add(sid)
    return {p: frozenset(s) for p, s in keys.items()}


# ---------------------------------------------------------------- cochange


def run_cochange(ctx: StageContext) -> StageResult:
    tables = cochange_stage.build(
        ctx.input("touches"),
        ctx.input("commits"),
        ctx.input("files"),
        ctx.input("symbols"),
        ctx.config.graph,
    )
    cf = tables["cochange_files"]
    stats = {
        "file_edges": cf.num_rows // 2,
        "hidden_file_edges": int(pc.sum(cf["hidden"]).as_py() or 0) // 2,
        "symbol_edges": tables["cochange_symbols"].num_rows // 2,
        "graph_nodes": tables["graph_nodes"].num_rows,
        "graph_edges": tables["graph"].num_rows,
    }
    return StageResult(tables=tables, stats=stats)


CAPSULE = Stage(
    name="capsule",
    run=run_capsule,
    outputs=("commits", "touches", "hunks"),
    config=("index", "history", "redaction"),
    source="head",
    description="one capsule per commit (intent, tickets, diff excerpt) and per-symbol touches",
    weight=3.5,
)
BLAME = Stage(
    name="blame",
    run=run_blame,
    inputs=("files", "symbols", "commits", "hunks"),
    outputs=("blame",),
    config=("index",),
    source="head",
    description="line ownership of every HEAD symbol and its load-bearing share",
    weight=1.3,
)
COCHANGE = Stage(
    name="cochange",
    run=run_cochange,
    inputs=("touches", "commits", "files", "symbols"),
    outputs=("cochange_files", "cochange_symbols", "graph_nodes", "graph"),
    config=("graph",),
    description="time-decayed co-change of files and symbols, and its CSR graph",
    weight=0.15,
)
STAGES = [CAPSULE, BLAME, COCHANGE]
