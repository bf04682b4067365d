"""`Strata`: the Python API over one repository and its index, and the one library surface.

    with Strata("path/to/repo") as strata:
        report = strata.index()

Every CLI command goes through a method here; heavy modules load on first use. Where the work
tree and the index folder are is decided once, by `store.location.Location`: a named index
folder (`index_dir`) needs no checkout, so a downloaded index can be read anywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .store.location import Location, is_uri

if TYPE_CHECKING:
    import polars as pl

    from .pipeline.gitio import Git
    from .pipeline.progress import Progress
    from .pipeline.runner import IndexReport
    from .serve.engine import Engine
    from .serve.invariants import Invariant
    from .serve.memory import MemoryBook, Recalled, WriteResult
    from .serve.models import FailureWarning, InvariantHit, PreflightReport, SearchResponse
    from .serve.tasks import TaskService
    from .store.attempts import FailedAttempt
    from .store.config import Config
    from .store.doctor import Check
    from .store.generations import Store
    from .store.journal import Skipped
    from .store.journal_health import JournalHealth
    from .store.memory import Memory
    from .store.remote import RemoteStore


class Strata:
    """One repository and its index.

    `repo` is any folder inside the work tree; `index_dir` names the index folder (default:
    `<work tree>/.strata`). Without a work tree, a named `index_dir` is still readable (status,
    inspect, sql, search); without either, construction fails with `NotARepository`, unless
    `require_repo=False` (the MCP server starts anyway and tells its client).
    """

    def __init__(
        self,
        repo: str | Path = ".",
        *,
        index_dir: str | Path | None = None,
        require_repo: bool = True,
    ) -> None:
        # a remote location (s3://, gs://, file://) is served from its local cache store
        self.remote: RemoteStore | None = None
        if is_uri(index_dir):
            from .store.remote import RemoteStore

            self.remote = RemoteStore(str(index_dir))
            index_dir = self.remote.local.root
        self._pulled = False
        self.location = Location.resolve(repo, index_dir)
        if require_repo and index_dir is None:
            self.location.require_repo()
        self.repo: Path | None = self.location.repo
        self.index_dir: Path = self.location.index_dir_or_default
        self._engine: Engine | None = None
        self._git: Git | None = None
        self._tasks: TaskService | None = None
        self._memory: MemoryBook | None = None
        self._journal_skipped: list[Skipped] = []

    @property
    def git(self) -> Git:
        """Git plumbing over the work tree (validated on first use)."""
        from .pipeline.gitio import Git

        if self._git is None:
            self._git = Git(self.location.require_repo())
        return self._git

    @property
    def store(self) -> Store:
        from .store.generations import Store

        return Store(self.index_dir)

    @property
    def engine(self) -> Engine:
        """The read side over the live generation, opened on first use and refreshed when a
        newer generation was published."""
        from .serve.engine import Engine

        if self._engine is None:
            self._sync_remote()
            self._engine = Engine.open(
                self.index_dir, repo_root=self.repo, watch_head=self._own_index()
            )
        else:
            self._engine.reload()
        return self._engine

    def _own_index(self) -> bool:
        """The index is this work tree's (its own folder, or one named inside it), so its HEAD
        can be compared with the work tree's."""
        named = self.location.named_index
        if self.repo is None or self.remote is not None:
            return False
        return named is None or named.resolve().is_relative_to(self.repo.resolve())

    def search(
        self, query: str, top_k: int = 10, *, file_path: str | None = None, mode: str = "full"
    ) -> SearchResponse:
        """Tri-path search over code, commit capsules and failures (see `serve/search.py`).
        `file_path` (a path or a glob) is taken from the folder this `Strata` was opened on,
        like `preflight`'s."""
        if file_path is not None:
            file_path = self.repo_path(file_path)
        return self.engine.search(query, top_k, file_path=file_path, mode=mode)

    def preflight(
        self, file_path: str, symbol: str | None = None, intended_change: str | None = None
    ) -> PreflightReport:
        """What to know before editing `symbol` in `file_path`.

        `file_path` is relative to the folder this `Strata` was opened on (like `git -C`), or
        absolute; a path outside the repository raises `InputError`. `symbol` is a name
        (`new`), a qualified name (`Foo::new`, `Class.method`) or either with `@LINE` (`new@42`:
        the one whose lines span 42). A name that matches several symbols equally well raises
        `AmbiguousSymbol` (an `InputError`), whose `candidates` are their (qualname, first line,
        last line). An unknown file or symbol is not an error: the report has `found=False`,
        a `message` and the `nearest` matches."""
        return self.engine.preflight(self.repo_path(file_path), symbol, intended_change)

    def repo_path(self, file_path: str) -> str:
        """`file_path` as the caller means it: a relative path is taken from the folder this
        `Strata` was opened on, as git takes it from the current directory. Returned relative
        to the work tree root (or as given without a work tree: a named index alone has no
        folders to be in)."""
        import os

        from .store.errors import InputError

        root = self.repo
        if root is None or not isinstance(file_path, str) or not file_path.strip():
            return file_path
        raw = file_path.strip().replace("\\", "/")
        if os.path.isabs(raw):
            return raw  # the engine checks it is inside the repository
        start = self.location.directory.resolve()
        if start == root:
            return raw
        full = Path(os.path.normpath(start / raw))
        try:
            return full.relative_to(root).as_posix()
        except ValueError:
            raise InputError(
                f"{file_path}: outside the repository",
                hint=f"name a file inside {root} (relative to the current folder, or absolute)",
            ) from None

    def index(
        self,
        *,
        rebuild: bool = False,
        jobs: int | None = None,
        progress: Progress | None = None,
        executor: str = "local",
        address: str | None = None,
        start_from: str | Path | None = None,
        preload: Callable[[], None] | None = None,
    ) -> IndexReport:
        """Build or refresh the index; only stale stages run. Returns what was done.
        `executor` is `local` (a process pool), `inline` or `ray` (Ray tasks on a local runtime,
        or on the cluster at `address`); the output is the same whichever runs.

        `start_from` names a prebuilt index (a store folder or a URI, e.g. the one CI published
        for the merge base): adopted when its commit is an ancestor of HEAD and it is newer than
        the local index, so only what is new is indexed. With a remote index location, the run
        starts from what is published there and publishes the new generation when done.

        `preload`: the caller's imports for the run (the command line's `preload("index")`),
        made once the pools' fork server is starting, so that its imports overlap them."""
        repo = self.location.require_repo()
        if executor == "local" and address is None and start_from is None and self.remote is None:
            # before the pipeline's imports, which its fork server's own imports then overlap
            self._start_pool_server_early(rebuild=rebuild, jobs=jobs)
        if preload is not None:
            preload()
        from .pipeline.runner import run_index

        notes: list[str] = []
        if self.remote is not None:
            self._sync_remote()
        if start_from is not None:
            from .pipeline.prebuilt import start_from as adopt_prebuilt

            note = adopt_prebuilt(self.git, self.store, start_from, self.git.require_head())
            if note:
                notes.append(note)
        report = run_index(
            repo,
            self.index_dir,
            rebuild=rebuild,
            jobs=jobs,
            progress=progress,
            executor=executor,
            address=address,
        )
        report.notes[:0] = notes
        if self.remote is not None:
            name = self.remote.push(self.store.require_live())
            report.published = f"{self.remote.shown} ({name})"
        return report

    def _start_pool_server_early(self, *, rebuild: bool, jobs: int | None) -> bool:
        """Start the local pools' fork server now when this run will extract a long history on
        a pool: a full index (no live index, or `rebuild`) of at least `EARLY_POOL_COMMITS`
        commits, with more than one job. The server imports the stages' modules on another core
        while this process imports the pipeline, so capsule's pool forks its workers without
        waiting for it. Returns whether it was started; anything unexpected (no HEAD, git
        failing) leaves the run to say so."""
        from .pipeline.executor import local_jobs, start_pool_server
        from .store.errors import GitstrataError

        if local_jobs(jobs) < 2:
            return False
        if not rebuild and (self.index_dir / "CURRENT").exists():
            return False  # an incremental run: a few new commits, extracted in process
        try:
            head = self.git.head()
            if head is None:
                return False
            count = self.git.run("rev-list", "--count", "--no-merges", head, check=False).strip()
            if not count.isdigit() or int(count) < EARLY_POOL_COMMITS:
                return False
            start_pool_server()
        except (GitstrataError, OSError):
            return False
        return True

    def _sync_remote(self) -> None:
        """Bring the local cache of a remote index location up to what is published, once."""
        if self.remote is not None and not self._pulled:
            self.remote.pull()
            self._pulled = True

    # ------------------------------------------------------------------ the live index

    def status(self) -> dict[str, Any]:
        """The live generation, its indexed HEAD (and whether the work tree's HEAD moved since),
        its tables and their sizes."""
        from .store.status import index_status

        # a named index may hold another checkout's history: only the own index is compared
        self._sync_remote()
        repo = self.repo if self.location.named_index is None else None
        info = index_status(self.store, repo)
        info["journal"] = self.journal_health().to_dict()
        return info

    def doctor(self) -> list[Check]:
        """Every check of `store.doctor` on the index folder (the live generation, the journal,
        the task store, whose snapshot it rebuilds from the journal), in report order."""
        from .store.doctor import run_doctor

        return run_doctor(self.index_dir)

    def inspect(self, limit: int = 10) -> dict[str, Any]:
        """Coupling hotspots, hidden couplings, load-bearing files and the index's footprint."""
        from .store.inspect import inspect_index

        self._sync_remote()
        return inspect_index(self.store.require_live(), limit)

    def sql(self, query: str) -> pl.DataFrame:
        """Polars SQL over the live generation's tables (`commits`, `touches`, `symbols`, ...)."""
        from .store.tables import run_sql

        self._sync_remote()
        return run_sql(self.store.require_live(), query)

    def config(self, *, defaults: bool = False) -> Config:
        """The effective configuration: the defaults with `<index>/config.json` applied (or the
        defaults alone)."""
        from .store.config import Config

        return Config() if defaults else Config.load(self.index_dir)

    # ------------------------------------------------------------------ the graveyard

    @property
    def journal_dir(self) -> Path:
        return self.index_dir / "journal"

    def failures(self) -> list[FailedAttempt]:
        """Live failed attempts, newest first (repeats folded in, forgotten ones left out)."""
        from .store.attempts import read_failures
        from .store.journal import Journal

        failures, self._journal_skipped = read_failures(Journal(self.journal_dir))
        return sorted(failures, key=lambda f: f.id, reverse=True)

    def journal_health(self) -> JournalHealth:
        """Every journal line read and checked: how many records fit, which lines are skipped."""
        from .store.journal_health import journal_health

        return journal_health(self.journal_dir)

    def journal_notice(self) -> str | None:
        """One line about the journal lines skipped by the reads this object made (its
        `failures()`, and its engine's), or None when every line read fitted."""
        from .store.journal_health import skipped_notice

        skipped = {(s.file, s.line): s for s in self._journal_skipped}
        if self._engine is not None:
            skipped.update({(s.file, s.line): s for s in self._engine.anti.skipped})
        return skipped_notice(sorted(skipped.values(), key=lambda s: (s.file, s.line)))

    def failure(self, failure_id: int) -> FailedAttempt:
        """One live failed attempt (`InputError` if there is none with that id)."""
        from .store.errors import InputError

        for f in self.failures():
            if f.id == failure_id:
                return f
        raise InputError(
            f"no failed attempt #{failure_id}", hint="`gitstrata graveyard` lists them"
        )

    def forget_failure(self, failure_id: int | str) -> int | str:
        """Forget a failed attempt (`12`) or mute a reverted commit's warnings (`revert:<sha>`):
        appends a tombstone, nothing is rewritten. Returns the id as parsed."""
        from .store.attempts import REVERT_PREFIX, forget_failure, parse_failure_id
        from .store.errors import InputError
        from .store.journal import Journal

        fid = parse_failure_id(failure_id)
        if isinstance(fid, str):
            sha = fid[len(REVERT_PREFIX) :]
            commits = self.engine.index.commits
            reverted = {
                full
                for c in commits.values()
                if c.get("intent") == "revert" and c.get("reverted_sha")
                for full in commits
                if full.startswith(c["reverted_sha"])
            }
            if not any(full.startswith(sha) for full in reverted):
                raise InputError(
                    f"no reverted commit {fid} in the index",
                    hint="use the id a preflight or search warning shows (revert:<sha>)",
                )
        forget_failure(Journal(self.journal_dir), fid)
        return fid

    def exec(self, argv: Sequence[str], notes: str | None = None) -> int:
        """Run `argv` transparently (output streams live); when it fails, record the attempt
        with the work tree's diff and the failure signature. Returns the command's exit code.

        The repository's configuration (`graveyard` section) bounds what is captured."""
        import sys

        from .serve.api import symbols_rows
        from .serve.capture import exec_and_record
        from .store.config import GraveyardConfig
        from .store.errors import GitstrataError
        from .store.redact import Redactor, redactor_for

        root = self.location.require_repo()
        redactor: Redactor | None = None
        try:
            config = self.config()
            cfg, redactor = config.graveyard, redactor_for(config.redaction)
        except GitstrataError as exc:
            # a broken config.json must not cost the command its run or its exit code
            print(f"gitstrata: {exc}; recording with the default settings", file=sys.stderr)
            cfg = GraveyardConfig()
        index_dir = self.index_dir
        return exec_and_record(
            root,
            self.journal_dir,
            argv,
            notes,
            lambda: symbols_rows(index_dir),
            cfg=cfg,
            redactor=redactor,
        )

    def record_failure(
        self,
        file_path: str | None,
        attempted_diff: str = "",
        error_trace: str = "",
        notes: str | None = None,
        symbol_name: str | None = None,
        command: str | None = None,
        *,
        exit_code: int | None = None,
        recorded_at: str | None = None,
    ) -> FailureWarning:
        """Record a failed approach in the journal (durable before returning); searchable at
        once and folded into the documents by the next index run. A repeat of the same attempt
        bumps its occurrence count instead of adding a copy. The arguments are the fields of
        `gitstrata.store.attempts.Attempt`."""
        from .serve.api import record_failure
        from .store.attempts import Attempt

        attempt = Attempt(
            file_path=file_path,
            attempted_diff=attempted_diff,
            error_trace=error_trace,
            notes=notes,
            symbol_name=symbol_name,
            command=command,
            exit_code=exit_code,
            recorded_at=recorded_at,
        )
        return record_failure(self.repo, self.index_dir, attempt)

    def record_invariant(
        self, rule_id: str, scope: str, description: str, severity: str = "high"
    ) -> InvariantHit:
        """Add (or replace) a team rule in `.strata/invariants.okf.json`."""
        from .serve.api import record_invariant

        return record_invariant(self.index_dir, rule_id, scope, description, severity)

    def invariants(self) -> list[Invariant]:
        """The team rules in `.strata/invariants.okf.json`, in file order."""
        from .serve.invariants import InvariantStore

        return InvariantStore.in_strata(self.index_dir).rules()

    def remove_invariant(self, rule_id: str) -> Invariant:
        """Remove a team rule; returns it (`InputError` if there is none with that id)."""
        from .serve.invariants import InvariantStore

        return InvariantStore.in_strata(self.index_dir).remove(rule_id)

    # ------------------------------------------------------------------ task continuity

    @property
    def tasks(self) -> TaskService:
        """Tasks, checkpoints, handoffs and restores of this repository (one session per
        `Strata`): `strata.tasks.create_task(name, goal)`, `track_progress`, `track_failure`,
        `session_handoff`, `report_interruption`, `restore_checkpoint(task_id, mode)`,
        `list_tasks`, `list_checkpoints`, `session_outcome`, `evaluate_continuity`,
        `runtime_health`. See `serve/tasks.py`."""
        from .serve.tasks import TaskService

        if self._tasks is None:
            self._tasks = TaskService(self.index_dir, self.repo)
            self._tasks.outcome_hooks.append(lambda delta: self.memory.adjust_used(delta))
        return self._tasks

    # ------------------------------------------------------------------ memories

    @property
    def memory(self) -> MemoryBook:
        """The agent memories of this repository (journal, team file and index imports); see
        `serve/memory.py`. Writes are durable before a call returns."""
        from .serve.memory import MemoryBook

        if self._memory is None:
            self._memory = MemoryBook(self.index_dir, self.repo, index_vectors=True)
        return self._memory

    def remember(self, text: str, kind: str = "fact", **options: Any) -> WriteResult:
        """Store a memory (or reinforce, merge into or supersede a similar one). Options:
        importance (0..1), tags, anchors (`path` or `path::Symbol`), source, status, share."""
        return self.memory.remember(text, kind, **options)

    def recall(self, query: str, limit: int = 5, **options: Any) -> list[Recalled]:
        """The memories that best answer `query` (each returned one is reinforced)."""
        return self.memory.recall(query, limit, **options)

    def forget_memory(self, memory_id: str) -> Memory:
        return self.memory.forget(memory_id)

    def update_memory(self, memory_id: str, **fields: Any) -> Memory:
        return self.memory.update(memory_id, **fields)

    def memory_stats(self) -> dict[str, Any]:
        return self.memory.stats()

    def context_pack(self, budget: int = 2000) -> str:
        """A token-budgeted briefing for an agent: open tasks (interrupted ones first), project
        summary, hotspots, active decisions and pitfalls, invariants, stale memories."""
        from .serve.memory_context import context_pack
        from .store.errors import GitstrataError

        try:
            listed = self.tasks.list_tasks(limit=10)
        except GitstrataError:  # a degraded task store says so in `gitstrata task list`
            listed = {"tasks": [], "interrupted": []}
        stopped = {t.get("task") for t in listed.get("interrupted") or []}
        tasks = [
            f'- task {t["id"]} "{t["name"]}" [{t["status"]}]: {t["goal"]}'
            + (" (interrupted: call restore_checkpoint first)" if t["id"] in stopped else "")
            for t in sorted(listed["tasks"], key=lambda t: t["id"] not in stopped)
            if t["status"] in ("open", "blocked")
        ]
        return context_pack(self.memory, self.invariants(), budget=budget, tasks=tasks)

    # ------------------------------------------------------------------ serving

    def serve_mcp(
        self,
        *,
        transport: str = "stdio",
        host: str = "127.0.0.1",
        port: int = 8765,
        allow_remote: bool = False,
    ) -> None:
        """Serve this repository over the Model Context Protocol until the client goes away."""
        from .serve.mcp_server import serve

        self._sync_remote()
        serve(
            self.repo if self.repo is not None else self.location.directory,
            index_dir=self.location.named_index,
            transport=transport,
            host=host,
            port=port,
            allow_remote=allow_remote,
        )

    def close(self) -> None:
        self._engine = None
        self._memory = None

    def __enter__(self) -> Strata:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# a full index of at least this many commits extracts its history on a pool of workers: twice
# `history.commits_per_worker`'s default (`tests/test_scaleout.py` keeps the two in step; a
# config that changes it only makes this guess wrong, which costs time, never an answer)
EARLY_POOL_COMMITS = 400


def jobs_used(jobs: int | None) -> int:
    """The jobs `Strata.index(jobs=...)` runs with on this machine: one per core by default, at
    most four per core (`pipeline.executor.local_jobs`)."""
    from .pipeline.executor import local_jobs

    return local_jobs(jobs)


def preload(command: str) -> None:
    """Import the modules `command` ("index" or "mcp") needs before it starts working, at a moment
    of the caller's choosing (the command line imports them with the cycle collector paused)."""
    if command == "mcp":
        from .serve.mcp_server import import_server_modules

        import_server_modules()
    elif command == "index":
        from .pipeline import runner  # noqa: F401


def serve_mcp(
    directory: str | Path,
    locations: Sequence[str] = (),
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    allow_remote: bool = False,
) -> None:
    """Serve over MCP: the repository at `directory` (or the one index of `locations`), or,
    with several `NAME=LOCATION` entries, each of those repositories behind one server. A
    location is a repository folder, an index folder, or a remote index URI (relative folders
    are taken from `directory`)."""
    from .serve.mcp_multi import serve_many, split_named

    options: dict[str, Any] = {
        "transport": transport,
        "host": host,
        "port": port,
        "allow_remote": allow_remote,
    }
    named = split_named(list(locations))
    if named is None:
        index_dir = locations[0] if locations else None
        Strata(directory, index_dir=index_dir, require_repo=False).serve_mcp(**options)
        return
    repos: list[tuple[str, Path, Path | None]] = []
    for name, where in named:
        if is_uri(where):
            from .store.remote import RemoteStore

            remote = RemoteStore(where)
            remote.pull()
            repos.append((name, remote.local.root, remote.local.root))
            continue
        folder = Path(directory) / where
        if not folder.is_dir():
            from .store.errors import InputError

            raise InputError(
                f"--index {name}={where}: no such folder",
                hint="name a repository or an index folder",
            )
        own = (folder / ".git").exists()  # a checkout: its own .strata, built when missing
        repos.append((name, folder, None if own else folder))
    serve_many(repos, **options)
