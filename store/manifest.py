"""The manifest: what a generation holds and how it was made.

One `manifest.json` per generation. It names every output file relative to the generation folder
(never an absolute path, so a generation can be moved or downloaded), with rows, bytes and sha256,
and per stage the fingerprint that decides whether the next run can skip it and the code version
that decides whether its artifacts can be reused incrementally.

The schema only ever grows in ways older readers accept: a long-running `gitstrata mcp` of an
older release reads indexes that a newer `gitstrata index` wrote (models here forbid unknown
fields), which is why the code version lives in a stage's open `state`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OutputInfo(_Model):
    file: str  # relative to the generation folder
    format: str  # "parquet" | "arrow" | "dir"
    rows: int | None = None
    bytes: int
    sha256: str


CODE_VERSION = "code_version"  # key of the stage's code version in `StageRecord.state`


class StageRecord(_Model):
    # Stages were once versioned by hand; older readers still require the field. Stages are now
    # versioned by their code (`code_version`), and 0 here makes an older indexer re-run them.
    version: int = 0
    fingerprint: str
    outputs: dict[str, OutputInfo] = Field(default_factory=dict)
    seconds: float = 0.0
    skipped: bool = False
    # what an incremental re-run needs (e.g. the last indexed commit), and counts for summaries
    state: dict[str, Any] = Field(default_factory=dict)
    stats: dict[str, Any] = Field(default_factory=dict)

    @property
    def code_version(self) -> str:
        """sha256 of the code that wrote the outputs; "" when an older release wrote them, which
        matches no code, so those stages re-run."""
        return str(self.state.get(CODE_VERSION, ""))


class Manifest(_Model):
    format_version: int
    generation: str
    created_at: str  # ISO-8601 UTC
    tool_version: str
    repo_head: str
    repo_tree: str
    shallow: bool = False
    indexed_range: dict[str, Any] = Field(default_factory=dict)
    stages: dict[str, StageRecord] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)
    timings: dict[str, float] = Field(default_factory=dict)

    def output(self, name: str) -> tuple[str, OutputInfo] | None:
        """The stage and record that produced artifact `name`, if any."""
        for stage, rec in self.stages.items():
            if name in rec.outputs:
                return stage, rec.outputs[name]
        return None
