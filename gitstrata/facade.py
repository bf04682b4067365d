"""`Strata`: the Python API over one repository and its index.

    with Strata("path/to/repo") as strata:
        report = strata.index()

Everything the CLI and the MCP server do goes through here; heavy modules load on first use.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .pipeline.progress import Progress
    from .pipeline.runner import IndexReport
    from .serve.engine import Engine
    from .serve.models import FailureWarning, InvariantHit, PreflightReport, SearchResponse


class Strata:
    def __init__(self, repo: str | Path = ".", *, index_dir: str | Path | None = None) -> None:
        from .pipeline.gitio import Git

        self.git = Git(repo)
        self.repo = self.git.root
        self.index_dir = Path(index_dir) if index_dir is not None else self.repo / ".strata"
        self._engine: Engine | None = None

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
        """Tri-path search over code, commit capsules and failures (see `serve/search.py`)."""
        return self.engine.search(query, top_k, file_path=file_path, mode=mode)

    def preflight(
        self, file_path: str, symbol: str | None = None, intended_change: str | None = None
    ) -> PreflightReport:
        """What to know before editing `symbol` in `file_path`."""
        return self.engine.preflight(file_path, symbol, intended_change)

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
            self.repo,
            self.index_dir,
            rebuild=rebuild,
            jobs=jobs,
            progress=progress,
            executor=executor,
        )

    @property
    def journal_dir(self) -> Path:
        return self.index_dir / "journal"

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
