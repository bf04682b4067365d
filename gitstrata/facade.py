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


class Strata:
    def __init__(self, repo: str | Path = ".", *, index_dir: str | Path | None = None) -> None:
        from .pipeline.gitio import Git

        self.git = Git(repo)
        self.repo = self.git.root
        self.index_dir = Path(index_dir) if index_dir is not None else self.repo / ".strata"

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
            self.repo, self.index_dir, rebuild=rebuild, jobs=jobs, progress=progress, executor=executor
        )

    def close(self) -> None:
        pass

    def __enter__(self) -> Strata:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
