"""The index behind a long-running server: first load, first build, refresh, hot swap, status.

The HEAD watch lives in `headwatch`, the background `gitstrata index` child in `indexjob`;
this module decides when to load, build and swap, and reports where it is.

Invariants:

- Nothing here blocks the server's start. One background thread loads the live generation (or
  starts the first build) and then watches; a request waits at most `wait_seconds` for a load in
  progress and never for a build.
- The first engine answers at once, cold; it is warmed (lookups built, numba kernels compiled)
  in the background just after the first answer, so start-up never waits for warming.
- In a process whose start-up froze its modules out of Python's cycle collector (the command
  line does, `entry._import_quietly`, and records it in `store.collector`), the collector stays
  paused from `start` to the first answer (or the first tick that finds nothing to load) and
  what the load made is frozen too:
  its passes over the engine's imports and the first answer's new objects were 15-75 ms of the
  time from spawn to the first answer. A library host keeps its collector as it set it.
- A request takes `self.engine` once and uses that engine to the end. A refresh opens and warms
  a new `Engine` on the new generation before replacing the reference, so the swap falls between
  requests and no request pays for a cold build.
- HEAD is polled once per `interval` seconds (see `headwatch`: no subprocess per request).
- One build at a time; a failed build keeps the old generation serving, is reported in
  `status()`, and the same HEAD is not retried until HEAD moves again.
- The served generation's files are checked against their last verified stat signature on each
  tick (a few dozen `stat` calls; sha256 only when one changed): a damaged generation makes the
  phase "broken", every tool answer an error naming it, and starts one `gitstrata index`, which
  rebuilds what is damaged.
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..store.collector import start_up_frozen
from ..store.errors import GitstrataError, IndexCorrupt
from ..store.generations import Store
from ..store.location import find_repo_root
from ..store.status import index_status, read_head
from .headwatch import HeadWatch
from .indexjob import Build, utc_now

if TYPE_CHECKING:
    from .engine import Engine
    from .prescrub import Prescrub

log = logging.getLogger("gitstrata.mcp")

MAX_ERRORS = 10


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
        self.started_at = utc_now()
        self.problem: str | None = None  # why there is no engine, while there is none
        self.damage: str | None = None  # what is wrong with the served generation's files
        self._repairing: str | None = None  # the damaged generation a build was started for
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
        self._started = False
        self._collector_paused = False
        self._prescrub: Prescrub | None = None  # the firewall run ahead over the served strings
        self._thread = threading.Thread(target=self._run, name="gitstrata-index", daemon=True)

    @property
    def phase(self) -> str:
        if self._build is not None:
            return "indexing" if self.engine is None else "refreshing"
        if self.damage is not None:
            return "broken"
        if self.engine is not None:
            return "ready"
        if self._loading:
            return "loading"
        return "error" if self.problem else "starting"

    # ------------------------------------------------------------------ requests

    def start(self) -> None:
        """Start the background thread (once; later calls do nothing)."""
        with self._lock:
            if self._started:
                return
            self._started = True
            if start_up_frozen() and gc.isenabled():
                gc.disable()
                self._collector_paused = True
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
        self._resume_collector()

    def _resume_collector(self) -> None:
        """End the start-up pause of the cycle collector (see the module's invariants)."""
        with self._lock:
            if not self._collector_paused:
                return
            self._collector_paused = False
        gc.freeze()
        gc.enable()

    def notice(self) -> tuple[str, dict[str, Any], bool]:
        """Why there is no engine: (message for the agent, structured state, is it an error)."""
        build, problem = self._build, self.problem
        if build is not None:
            elapsed = round(time.monotonic() - build.started)
            try:  # an index is there, but could not be opened (damaged, or another version's)
                replacing = self.store.current_name() is not None
            except GitstrataError:
                replacing = True
            what = (
                "rebuilding this repository's index, which could not be opened"
                if replacing
                else "indexing this repository for the first time"
            )
            text = (
                f"gitstrata is {what} ({build.where()}; {elapsed} s so far). Answers start as "
                "soon as the index is published: call this tool again in a few seconds. "
                "record_failure and record_invariant already work."
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
            # the firewall run ahead over the served strings: how many so far, and whether done
            "prescrub": None
            if self._prescrub is None
            else {"strings": self._prescrub.done, "finished": self._prescrub.finished.is_set()},
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
        except IndexCorrupt as exc:
            out["index"] = None
            out["index_error"] = str(exc)
            out["phase"] = "broken" if self._build is None else out["phase"]
            out["problem"] = out["problem"] or str(exc)
        except (GitstrataError, OSError) as exc:
            out["index"] = None
            out["index_error"] = str(exc)
        return out

    # ------------------------------------------------------------------ background

    def close(self) -> None:
        """Stop watching and end a build in progress (an interrupted build publishes nothing)."""
        self._stop.set()
        self._resume_collector()
        if self._prescrub is not None:
            self._prescrub.stop()
        build = self._build
        if build is not None:
            build.stop()
        if self._thread.is_alive():
            self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._tick()
            except Exception as exc:  # noqa: BLE001 - a thread boundary: report it, keep watching
                log.exception("the index watcher failed")
                self._fail(f"{type(exc).__name__}: {exc}")
            if self.engine is None:
                self._resume_collector()  # nothing to answer fast: a build or an error
            self._loading, self._ticked = False, True
            self._notify()
            self._stop.wait(self.interval)

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def _fail(self, message: str) -> None:
        with self._lock:
            self.errors = [*self.errors[-(MAX_ERRORS - 1) :], {"at": utc_now(), "message": message}]
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
        # after a load: a served generation an index run has since collected is not damage
        self._check_served()
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

    def _check_served(self) -> None:
        """Notice damage to the served generation's files, and start one repairing build."""
        engine = self.engine
        if engine is None:
            self.damage = None
            return
        try:
            if self.store.current_name() != engine.generation:
                return  # a newer one is published: it is loaded next
        except GitstrataError:
            pass  # CURRENT itself is damaged: the served files are still checked
        found = engine.index.gen.problems()
        if not found:
            self.damage = None
            return
        self.damage = f"generation {engine.generation} is damaged: {next(iter(found.values()))}"
        if self._build is None and self._repairing != engine.generation and self.repo is not None:
            self._repairing = engine.generation
            self._fail(self.damage)
            head = read_head(self.repo)
            if head is not None:
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
            _freeze()
            self._prescrub_for(engine)

    def _maybe_warm(self) -> None:
        engine, answered = self.engine, self._answered_at
        if engine is None or self.warm:
            return
        now = time.monotonic()
        # the grace lets the first response leave before warming takes the CPU
        if (answered is not None and now - answered >= 0.2) or now >= self._warm_due:
            self._resume_collector()
            engine.warm()
            _freeze()
            self.warm = True
            self._prescrub_for(engine)

    def _prescrub_for(self, engine: Engine) -> None:
        """Run the firewall ahead over what `engine`'s answers serve (`serve/prescrub.py`), in
        place of a run for the engine it replaced."""
        from .prescrub import Prescrub

        if self._prescrub is not None:
            self._prescrub.stop()
            self._prescrub = None
        if engine.config.firewall.run_ahead:
            self._prescrub = Prescrub(engine).start()

    def _start_build(self, head: str) -> None:
        assert self.repo is not None
        self.store.ensure()
        self._build = Build.start(self.python, self.repo, self.index_dir, head)
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
        error = None if ok else build.error_text(code)
        record = {
            "head": build.head,
            "started_at": build.started_at,
            "finished_at": utc_now(),
            "seconds": round(time.monotonic() - build.started, 3),
            "ok": ok,
            "error": error,
        }
        with self._lock:
            self.last_refresh = record
        self._done_head = build.head
        self._loading = ok and self.engine is None
        if error is not None:
            self._fail(error)
        # cleared last: a reader never sees neither a build nor its outcome
        self._build = None


def _freeze() -> None:
    """Move what a warm engine holds out of the collector's way: its lookups live as long as the
    generation, and a full collection scanning them would stall whichever request triggers it."""
    gc.collect()
    gc.freeze()
