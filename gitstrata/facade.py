"""`Strata`: the Python API over one repository and its index, and the one library surface.

    with Strata("path/to/repo") as strata:
        report = strata.index()

Every CLI command goes through a method here; heavy modules load on first use. Where the work
tree and the index folder are is decided once, by `store.location.Location`: a named index
folder (`index_dir`) needs no checkout, so a downloaded index can be read anywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .store.location import Location

if TYPE_CHECKING:
    import polars as pl

    from .pipeline.gitio import Git
    from .pipeline.progress import Progress
    from .pipeline.runner import IndexReport
    from .serve.engine import Engine
    from .serve.invariants import Invariant
    from .serve.models import FailureWarning, InvariantHit, PreflightReport, SearchResponse
    from .store.attempts import FailedAttempt
    from .store.config import Config
    from .store.doctor import Check
    from .store.generations import Store
    from .store.journal import Skipped
    from .store.journal_health import JournalHealth


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
        self.location = Location.resolve(repo, index_dir)
        if require_repo and index_dir is None:
            self.location.require_repo()
        self.repo: Path | None = self.location.repo
        self.index_dir: Path = self.location.index_dir_or_default
        self._engine: Engine | None = None
        self._git: Git | None = None
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
            self._engine = Engine.open(self.index_dir, repo_root=self.repo)
        else:
            self._engine.reload()
        return self._engine

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
    ) -> IndexReport:
        """Build or refresh the index; only stale stages run. Returns what was done."""
        from .pipeline.runner import run_index

        return run_index(
            self.location.require_repo(),
            self.index_dir,
            rebuild=rebuild,
            jobs=jobs,
            progress=progress,
            executor=executor,
        )

    # ------------------------------------------------------------------ the live index

    def status(self) -> dict[str, Any]:
        """The live generation, its indexed HEAD (and whether the work tree's HEAD moved since),
        its tables and their sizes."""
        from .store.status import index_status

        # a named index may hold another checkout's history: only the own index is compared
        repo = self.repo if self.location.named_index is None else None
        info = index_status(self.store, repo)
        info["journal"] = self.journal_health().to_dict()
        return info

    def doctor(self) -> list[Check]:
        """Every check of `store.doctor` on the index folder (the live generation, the journal),
        in report order; reads only."""
        from .store.doctor import run_doctor

        return run_doctor(self.index_dir)

    def inspect(self, limit: int = 10) -> dict[str, Any]:
        """Coupling hotspots, hidden couplings, load-bearing files and the index's footprint."""
        from .store.inspect import inspect_index

        return inspect_index(self.store.require_live(), limit)

    def sql(self, query: str) -> pl.DataFrame:
        """Polars SQL over the live generation's tables (`commits`, `touches`, `symbols`, ...)."""
        from .store.tables import run_sql

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

        root = self.location.require_repo()
        try:
            cfg = self.config().graveyard
        except GitstrataError as exc:
            # a broken config.json must not cost the command its run or its exit code
            print(f"gitstrata: {exc}; recording with the default settings", file=sys.stderr)
            cfg = GraveyardConfig()
        index_dir = self.index_dir
        return exec_and_record(
            root, self.journal_dir, argv, notes, lambda: symbols_rows(index_dir), cfg=cfg
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

    def __enter__(self) -> Strata:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
