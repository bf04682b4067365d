"""The stage declaration and the context a stage's adapter runs in.

A `Stage` says what it reads and writes; its `run(ctx)` adapter does the I/O (git, previous
artifacts, the worker pool) and calls the pure function in `gitstrata.stages`. The runner decides
whether to run it from its fingerprint:

    sha256(name, code version, config sections it reads, repository source, input artifacts'
           sha256, extra)

so changing a retrieval weight never re-extracts history, and an unchanged repository skips
every stage. The code version is computed from the source of the stage's modules
(`pipeline/codeversion.py`): editing a stage re-runs it without anyone bumping a number, and a
previous artifact is reused incrementally only when the same code wrote it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from .executor import POOL_MIN_ITEMS

if TYPE_CHECKING:
    from ..store.config import Config
    from ..store.generations import Generation
    from .executor import Executor
    from .gitio import Git
    from .progress import Progress


@dataclass
class StageResult:
    """What a stage hands back: its tables (by artifact name), state for the next incremental
    run (JSON-able, stored in the manifest), and stats for the summary (counts, reasons)."""

    tables: dict[str, pa.Table] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Stage:
    name: str
    run: Callable[[StageContext], StageResult]
    inputs: tuple[str, ...] = ()  # artifacts written by earlier stages
    outputs: tuple[str, ...] = ()  # artifacts this stage writes (tables or folders)
    config: tuple[str, ...] = ()  # Config sections hashed into the fingerprint
    # which repository state the output depends on: "tree" (HEAD's tree id: the files),
    # "head" (the HEAD commit: history), or None (only the inputs)
    source: str | None = None
    # extra fingerprint material computed before running (e.g. the journal's size); optional
    extra: Callable[[StageContext], str] | None = None
    description: str = ""
    # with more than one job its work runs in a child process and waits without the interpreter
    # lock, so it starts as soon as its inputs are ready, beside the stages that take the places
    child: bool = False
    # its usual share of a full index's time, against the other stages' (about its seconds on a
    # 2,000-commit history): of the stages ready at once, the runner starts those heading the
    # heaviest chain of dependents first (`graph.chain_weights`)
    weight: float = 1.0


@dataclass
class StageContext:
    """Everything an adapter may use. Directory outputs are written into `output_dir(name)`."""

    stage: Stage
    code_version: str  # of this stage's modules; see pipeline/codeversion.py
    git: Git
    head: str
    tree: str
    config: Config
    jobs: int
    executor: Executor
    progress: Progress
    store_root: Path
    rebuild: bool
    previous_generation: Generation | None
    _inputs: Callable[[str], pa.Table]
    _output_dir: Callable[[str], Path]

    def input(self, name: str) -> pa.Table:
        """An input artifact of this run (freshly written or carried over)."""
        if name not in self.stage.inputs:
            raise KeyError(f"stage {self.stage.name!r} did not declare input {name!r}")
        return self._inputs(name)

    def input_path(self, name: str) -> Path:
        """The on-disk path of an input artifact (folders such as `embedder`)."""
        if name not in self.stage.inputs:
            raise KeyError(f"stage {self.stage.name!r} did not declare input {name!r}")
        return self._output_dir(name)

    @property
    def previous_record(self):  # -> StageRecord | None
        gen = self.previous_generation
        if gen is None or self.rebuild:
            return None
        return gen.manifest.stages.get(self.stage.name)

    @property
    def previous_state(self) -> dict[str, Any]:
        rec = self.previous_record
        return dict(rec.state) if rec is not None else {}

    @property
    def previous_head(self) -> str | None:
        gen = self.previous_generation
        return None if gen is None or self.rebuild else gen.manifest.repo_head

    def previous(self, name: str) -> pa.Table | None:
        """This stage's own artifact from the previous generation (for incremental reuse), or
        None on the first run, on `--rebuild`, or when other code wrote it."""
        gen = self._reusable(name)
        return None if gen is None else gen.table(name)

    def previous_path(self, name: str) -> Path | None:
        """Like `previous`, the path of the artifact (folders such as `embedder`)."""
        gen = self._reusable(name)
        return None if gen is None else gen.file(name)

    def _reusable(self, name: str) -> Generation | None:
        rec = self.previous_record
        gen = self.previous_generation
        if (
            rec is None
            or gen is None
            or rec.code_version != self.code_version
            or name not in rec.outputs
        ):
            return None
        return gen

    def output_dir(self, name: str) -> Path:
        if name not in self.stage.outputs:
            raise KeyError(f"stage {self.stage.name!r} did not declare output {name!r}")
        return self._output_dir(name)

    def map(
        self,
        fn: Callable[[Any], Any],
        items: Iterable[Any],
        *,
        label: str,
        total: int | None = None,
        min_items: int = POOL_MIN_ITEMS,
    ) -> Iterator[Any]:
        """Run `fn` over items on the executor, reporting progress; results in input order.
        Fewer than `min_items` items run in this process (`Executor.map`)."""
        with self.progress.task(f"{self.stage.name}: {label}", total=total) as task:
            for result in self.executor.map(fn, items, min_items):
                task.advance()
                yield result
