"""The index behind a long-running server: first load, first build, HEAD watch, refresh, swap.

Invariants:

- Nothing here blocks the server's start. One background thread loads the live generation (or
  starts the first build) and then watches; a request waits at most `wait_seconds` for a load in
  progress and never for a build.
- The first engine answers at once, cold; it is warmed (lookups built, numba kernels compiled)
  in the background just after the first answer, so start-up never waits for warming.
- A request takes `self.engine` once and uses that engine to the end. A refresh opens and warms
  a new `Engine` on the new generation before replacing the reference, so the swap falls between
  requests and no request pays for a cold build.
- HEAD is watched by `stat` of `.git/HEAD`, the ref it names and `packed-refs`, once per
  `interval` seconds; the files are read only when a stat changed. No subprocess per request.
- Builds run `gitstrata index` as a child process (the server never imports the pipeline). Its
  plain progress lines go to `<index>/mcp-index.log`, where the percentage is read from. One build
  at a time; a failed build keeps the old generation serving, is reported in `status()`, and the
  same HEAD is not retried until HEAD moves again.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..store.errors import GitstrataError
from ..store.generations import Store
from ..store.status import index_status, read_head

if TYPE_CHECKING:
    from .engine import Engine

log = logging.getLogger("gitstrata.mcp")

LOG_NAME = "mcp-index.log"
# `[capsule: commits] 120/480 (25%)` or `[documents: full-text index] 3` (see pipeline/progress.py)
PROGRESS_LINE = re.compile(
    r"^\[(?P<step>[^\]]+)\] (?P<done>\d+)(?:/(?P<total>\d+) \((?P<pct>\d+)%\))?$"
)
MAX_ERRORS = 10


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def find_repo_root(directory: Path) -> Path | None:
    """The nearest folder at or above `directory` holding a `.git` entry (work tree root)."""
    here = Path(directory).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _git_dirs(repo: Path) -> tuple[Path, Path]:
    """(git dir, common dir): they differ for a linked worktree."""
    git = repo / ".git"
    if git.is_file():
        text = git.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            git = (repo / text[7:].strip()).resolve()
    common = git
    try:
        common = (git / (git / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        pass
    return git, common


def _stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class HeadWatch:
    """Which commit HEAD names, re-read only when a stat of the files behind it changed."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.git_dir, self.common_dir = _git_dirs(repo)
        self._head_key: tuple[int, int, int] | None = None
        self._ref: str | None = None
        self._key: tuple[Any, ...] | None = None
        self._sha: str | None = None

    def poll(self) -> str | None:
        head_file = self.git_dir / "HEAD"
        head_key = _stat_key(head_file)
        if head_key != self._head_key:
            self._head_key = head_key
            try:
                text = head_file.read_text(encoding="utf-8").strip()
            except OSError:
                text = ""
            self._ref = text[4:].strip() if text.startswith("ref:") else None
        key: tuple[Any, ...] = (head_key,)
        if self._ref is not None:
            key += (
                _stat_key(self.git_dir / self._ref),
                _stat_key(self.common_dir / self._ref),
                _stat_key(self.common_dir / "packed-refs"),
            )
        if key != self._key:
            self._key = key
            self._sha = read_head(self.repo)
        return self._sha


@dataclass
class Build:
    """One `gitstrata index` child and what its log said so far."""

    head: str
    process: subprocess.Popen
    log_path: Path
    started: float = field(default_factory=time.monotonic)
    started_at: str = field(default_factory=_now)
    offset: int = 0
    step: str | None = None
    done: int = 0
    total: int | None = None
    percent: int | None = None
    tail: list[str] = field(default_factory=list)
    waiting: bool = False  # on another run's lock

    def read_log(self) -> None:
        try:
            with open(self.log_path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except OSError:
            return
        end = data.rfind(b"\n") + 1  # a line still being written is read next time
        self.offset += end
        for raw in data[:end].decode("utf-8", "replace").splitlines():
            line = raw.strip()
            if not line:
                continue
            self.tail = [*self.tail[-19:], line]
            if line.startswith("waiting for another gitstrata index"):
                self.waiting = True
            m = PROGRESS_LINE.match(line)
            if m:
                self.waiting = False
                self.step, self.done = m["step"], int(m["done"])
                self.total = int(m["total"]) if m["total"] else None
                self.percent = int(m["pct"]) if m["pct"] else None

    def error_text(self, code: int) -> str:
        lines = [x for x in self.tail if x.startswith(("error:", "hint:"))]
        if lines:
            return " ".join(lines)
        last = self.tail[-1] if self.tail else ""
        return f"`gitstrata index` exited with status {code}" + (f": {last}" if last else "")

    def progress(self) -> dict[str, Any]:
        """The last step the child reported (steps without a known size report no percent)."""
        return {
            "step": self.step,
            "done": self.done,
            "total": self.total,
            "percent": self.percent,
            "waiting_for_lock": self.waiting,
            "seconds": round(time.monotonic() - self.started, 1),
        }


class Lifecycle:
    """Owns the engine of one repository's index for a server process."""

    def __init__(
        self,
        directory: Path,
        index_dir: Path | None = None,
        *,
        interval: float = 1.0,
        wait_seconds: float = 30.0,
        warm_delay: float = 10.0,
        python: str = sys.executable,
    ) -> None:
        self.directory = Path(directory).resolve()
        self.repo = find_repo_root(self.directory)
        base = self.repo if self.repo is not None else self.directory
        self.index_dir = Path(index_dir).resolve() if index_dir is not None else base / ".strata"
        self.store = Store(self.index_dir)
        self.interval = interval
        self.wait_seconds = wait_seconds
        self.warm_delay = warm_delay
        self.python = python
        self.engine: Engine | None = None
        self.warm = False
        self.started_at = _now()
        self.problem: str | None = None  # why there is no engine, while there is none
        self.last_refresh: dict[str, Any] | None = None
        self.errors: list[dict[str, str]] = []
        self._loading = False
        self._build: Build | None = None
        self._done_head: str | None = None
        self._watch = HeadWatch(self.repo) if self.repo is not None else None
        self._ticked = False  # the first load-or-build decision was made
        self._changed = threading.Condition()
        self._answered_at: float | None = None  # warming waits for the first answer
        self._warm_due = 0.0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="gitstrata-index", daemon=True)

    @property
    def phase(self) -> str:
        if self._build is not None:
            return "indexing" if self.engine is None else "refreshing"
        if self.engine is not None:
            return "ready"
        if self._loading:
            return "loading"
        return "error" if self.problem else "starting"

    # ------------------------------------------------------------------ requests

    def start(self) -> None:
        self._thread.start()

    def acquire(self) -> Engine | None:
        """The engine to answer this request with, or None while there is none (see `notice`)."""
        if self.engine is None:
            # wait for the first decision, and for a published index being opened; never a build
            with self._changed:
                self._changed.wait_for(
                    lambda: self.engine is not None or (self._ticked and not self._loading),
                    timeout=self.wait_seconds,
                )
        return self.engine

    def note_answered(self) -> None:
        if self._answered_at is None:
            self._answered_at = time.monotonic()

    def notice(self) -> tuple[str, dict[str, Any], bool]:
        """Why there is no engine: (message for the agent, structured state, is it an error)."""
        build, problem = self._build, self.problem
        if build is not None:
            if build.waiting:
                where = "waiting for another `gitstrata index` run on this index to finish"
            elif build.step is None:
                where = "starting"
            elif build.percent is not None:
                where = f"step {build.step!r}, {build.percent}% done"
            else:
                where = f"step {build.step!r}"
            elapsed = round(time.monotonic() - build.started)
            text = (
                f"gitstrata is indexing this repository for the first time ({where}; {elapsed} s "
                "so far). Answers start as soon as the index is published: call this tool again "
                "in a few seconds. record_failure and record_invariant already work."
            )
            return text, {"status": "indexing", "progress": build.progress()}, False
        if problem:
            return (
                f"gitstrata has no index to answer from: {problem}",
                {"status": "error", "error": problem},
                True,
            )
        text = "gitstrata is still loading its index; call this tool again in a moment."
        return text, {"status": self.phase}, False

    # ------------------------------------------------------------------ status

    def status(self) -> dict[str, Any]:
        build, engine = self._build, self.engine
        with self._lock:
            errors, last = list(self.errors), self.last_refresh
        out: dict[str, Any] = {
            "phase": self.phase,
            "repo": str(self.repo) if self.repo is not None else None,
            "index_dir": str(self.index_dir),
            "serving_generation": engine.generation if engine is not None else None,
            "serving_head": engine.index.manifest.repo_head if engine is not None else None,
            "repo_head": read_head(self.repo) if self.repo is not None else None,
            "warm": self.warm,
            "server_started_at": self.started_at,
            "watching_head": self._watch is not None,
            "problem": self.problem,
            "build": None
            if build is None
            else {"head": build.head, "started_at": build.started_at, **build.progress()},
            "last_refresh": last,
            "errors": errors,
        }
        try:
            out["index"] = index_status(self.store, self.repo)
        except (GitstrataError, OSError) as exc:
            out["index"] = None
            out["index_error"] = str(exc)
        return out

    # ------------------------------------------------------------------ background

    def close(self) -> None:
        """Stop watching and end a build in progress (an interrupted build publishes nothing)."""
        self._stop.set()
        build = self._build
        if build is not None and build.process.poll() is None:
            build.process.terminate()
            try:
                build.process.wait(5)
            except subprocess.TimeoutExpired:
                build.process.kill()
                build.process.wait()
        if self._thread.is_alive():
            self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._tick()
            except Exception as exc:  # noqa: BLE001 - a thread boundary: report it, keep watching
                log.exception("the index watcher failed")
                self._fail(f"{type(exc).__name__}: {exc}")
            self._loading, self._ticked = False, True
            self._notify()
            self._stop.wait(self.interval)

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def _fail(self, message: str) -> None:
        with self._lock:
            self.errors = [*self.errors[-(MAX_ERRORS - 1) :], {"at": _now(), "message": message}]
        if self.engine is None:
            self.problem = message

    def _tick(self) -> None:
        self._poll_build()
        self._maybe_warm()
        try:
            current = self.store.current_name()
            if current is not None and (self.engine is None or current != self.engine.generation):
                self._load()
        except GitstrataError as exc:
            self._fail(str(exc) + (f" (hint: {exc.hint})" if exc.hint else ""))
        if self._watch is None:
            if self.engine is None:
                self.problem = (
                    f"{self.directory} is not inside a git repository and {self.index_dir} "
                    "holds no index: start the server with `gitstrata -C <repository> mcp`"
                )
            return
        head = self._watch.poll()
        if head is None:
            if self.engine is None and self._build is None:
                self.problem = (
                    "the repository has no commits yet: commit something, then call again"
                )
            return
        indexed = self.engine.index.manifest.repo_head if self.engine is not None else None
        if self._build is None and head != indexed and head != self._done_head:
            self._start_build(head)

    def _load(self) -> None:
        from .engine import Engine

        first = self.engine is None
        self._loading = first
        engine = Engine.open(self.index_dir, repo_root=self.repo)
        if first:
            # answer at once from a cold engine, warm it once the first request is out of the way
            self.engine, self.problem, self._loading = engine, None, False
            self._warm_due = time.monotonic() + self.warm_delay
            self._notify()
        else:
            engine.warm()
            self.engine = engine

    def _maybe_warm(self) -> None:
        engine, answered = self.engine, self._answered_at
        if engine is None or self.warm:
            return
        now = time.monotonic()
        # the grace lets the first response leave before warming takes the CPU
        if (answered is not None and now - answered >= 0.2) or now >= self._warm_due:
            engine.warm()
            self.warm = True

    def _start_build(self, head: str) -> None:
        assert self.repo is not None
        self.store.ensure()
        log_path = self.index_dir / LOG_NAME
        cmd = [
            self.python,
            "-m",
            "gitstrata",
            "index",
            str(self.repo),
            "--out",
            str(self.index_dir),
        ]
        env = {**os.environ, "NO_COLOR": "1"}
        with open(log_path, "wb") as fh:
            process = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=fh,
                cwd=self.repo,
                env=env,
            )
        self._build = Build(head=head, process=process, log_path=log_path)
        self.problem = None
        self._notify()

    def _poll_build(self) -> None:
        build = self._build
        if build is None:
            return
        code = build.process.poll()
        build.read_log()
        if code is None:
            return
        ok = code == 0
        record = {
            "head": build.head,
            "started_at": build.started_at,
            "finished_at": _now(),
            "seconds": round(time.monotonic() - build.started, 3),
            "ok": ok,
            "error": None if ok else build.error_text(code),
        }
        with self._lock:
            self.last_refresh = record
        self._done_head = build.head
        self._loading = ok and self.engine is None
        if not ok:
            self._fail(record["error"])
        # cleared last: a reader never sees neither a build nor its outcome
        self._build = None


# ---------------------------------------------------------------------- views for resources


def invariants_for(index_dir: Path, path: str, symbol: str | None) -> list[dict[str, str]]:
    """The team invariants covering `path` (and `symbol`), most severe first."""
    from .invariants import InvariantStore

    store = InvariantStore.in_strata(index_dir)
    rules = store.match(path, symbol) if symbol else store.match_file(path)
    return [r.to_dict() for r in rules]


def invariants_view(index_dir: Path) -> dict[str, Any]:
    from .invariants import FILE_NAME, InvariantStore

    try:
        rules = [r.to_dict() for r in InvariantStore.in_strata(index_dir).list()]
    except GitstrataError as exc:
        return {"file": FILE_NAME, "error": str(exc), "invariants": []}
    return {"file": FILE_NAME, "count": len(rules), "invariants": rules}


def graveyard_view(journal_root: Path, *, diff_lines: int = 40) -> dict[str, Any]:
    """Recorded failed attempts, newest first, each with a bounded diff excerpt."""
    from ..store.journal import Journal
    from .failures import load_failures

    warnings: list[str] = []
    failures = load_failures(Journal(journal_root), on_warning=warnings.append)
    items = []
    for f in sorted(failures, key=lambda f: (f.last_seen, f.id), reverse=True):
        changed = f.changed_lines()
        items.append(
            {
                "id": f.id,
                "first_seen": f.first_seen,
                "last_seen": f.last_seen,
                "occurrences": f.occurrences,
                "targets": [f"{p}::{q}" if q else p for p, q in f.targets],
                "command": f.command,
                "exit_code": f.exit_code,
                "notes": f.notes,
                "errors": list(f.signature.errors[:5]),
                "failing_tests": list(f.signature.failing[:10]),
                "diff_excerpt": "\n".join(changed[:diff_lines]),
                "diff_lines_omitted": max(0, len(changed) - diff_lines),
                "source": f.source,
            }
        )
    return {"count": len(items), "failures": items, "warnings": warnings}


def hotspots_view(engine: Engine, *, limit: int = 20) -> dict[str, Any]:
    """The strongest file couplings, and the hidden ones (changed together, no import link)."""
    import pyarrow.compute as pc

    from ..store.schemas import WEAK_BELOW

    index = engine.index
    out: dict[str, Any] = {"generation": index.name, "top_pairs": [], "hidden_pairs": []}
    if not index.has("cochange_files"):
        return out
    cols = ["src", "dst", "co_commits", "weight", "confidence", "rank_score", "hidden"]
    table = index.table("cochange_files", columns=cols)
    table = table.filter(pc.greater_equal(table["co_commits"], WEAK_BELOW))
    reverse = {
        (s, d): (c, r)
        for s, d, c, r in zip(
            *(table[c].to_pylist() for c in ("src", "dst", "confidence", "rank_score")),
            strict=True,
        )
    }
    # each pair once (both directions exist), by the partner ranking of its stronger direction
    pairs = table.filter(pc.less(table["src"], table["dst"])).to_pylist()
    for r in pairs:
        r["score"] = max(r["rank_score"], reverse.get((r["dst"], r["src"]), (0.0, 0.0))[1])
    pairs.sort(key=lambda r: (-r["score"], -r["co_commits"], r["src"], r["dst"]))

    def row(r: dict[str, Any]) -> dict[str, Any]:
        return {
            "a": r["src"],
            "b": r["dst"],
            "score": round(float(r["score"]), 4),
            "weight": round(float(r["weight"]), 4),
            "co_commits": r["co_commits"],
            "p_b_given_a": round(float(r["confidence"]), 4),
            "p_a_given_b": round(float(reverse.get((r["dst"], r["src"]), (0.0, 0.0))[0]), 4),
            "hidden": bool(r["hidden"]),
        }

    out["top_pairs"] = [row(r) for r in pairs[:limit]]
    hidden = [r for r in pairs if r["hidden"]]
    out["hidden_pairs"] = [row(r) for r in hidden[:limit]]
    out["pairs_total"] = len(pairs)
    out["hidden_total"] = len(hidden)
    return out
