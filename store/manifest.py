"""The manifest: what a generation holds and how it was made.

One `manifest.json` per generation. It names every output file relative to the generation folder
(never an absolute path, so a generation can be moved or downloaded), with rows, bytes and sha256,
and per stage the code version and fingerprint that decide whether the next run can skip it and
whether its artifacts can be reused incrementally.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OutputInfo(_Model):
    file: str  # relative to the generation folder
    format: str  # "parquet" | "arrow" | "dir"
    rows: int | None = None
    bytes: int
    sha256: str


class StageRecord(_Model):
    # sha256 of the stage's modules; "" in manifests written before code versions existed, which
    # then match no stage, so every stage re-runs once
    code: str = ""
    fingerprint: str
    outputs: dict[str, OutputInfo] = Field(default_factory=dict)
    seconds: float = 0.0
    skipped: bool = False
    # what an incremental re-run needs (e.g. the last indexed commit), and counts for summaries
    state: dict[str, Any] = Field(default_factory=dict)
    stats: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _drop_hand_version(cls, data: Any) -> Any:
        # Older manifests carry a hand-bumped `version` per stage instead of `code`; they stay
        # readable (a server can open them) and their stages re-run on the next index.
        if isinstance(data, dict) and "version" in data:
            data = {k: v for k, v in data.items() if k != "version"}
        return data


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
