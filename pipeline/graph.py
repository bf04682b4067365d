"""Validation and ordering of the stage graph, done before anything runs.

Every problem is collected and reported in one message, so a broken registry is fixed in one go.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..store.errors import PipelineGraphError
from ..store.schemas import ARTIFACTS
from .stage import Stage


def order_stages(stages: Sequence[Stage]) -> list[Stage]:
    problems: list[str] = []
    names = [s.name for s in stages]
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"stage {name!r} is declared twice")
    producer: dict[str, str] = {}
    for stage in stages:
        for out in stage.outputs:
            if out in producer:
                problems.append(
                    f"artifact {out!r} is written by both {producer[out]!r} and {stage.name!r}"
                )
            producer[out] = stage.name
            if out not in ARTIFACTS:
                problems.append(
                    f"stage {stage.name!r} writes {out!r}, which has no schema in store/schemas.py"
                )
        if stage.source not in (None, "tree", "head"):
            problems.append(f"stage {stage.name!r} has unknown source {stage.source!r}")
    for stage in stages:
        for inp in stage.inputs:
            if inp not in producer:
                hint = f" (known: {', '.join(sorted(producer))})" if producer else ""
                problems.append(f"stage {stage.name!r} reads {inp!r}, which no stage writes{hint}")
    if problems:
        raise PipelineGraphError("invalid stage graph: " + "; ".join(problems))

    # Kahn's algorithm, keeping declaration order among ready stages (deterministic).
    deps = dependencies(stages)
    ordered: list[Stage] = []
    done: set[str] = set()
    pending = list(stages)
    while pending:
        ready = [s for s in pending if deps[s.name] <= done]
        if not ready:
            cycle = ", ".join(s.name for s in pending)
            raise PipelineGraphError(f"invalid stage graph: a cycle among {cycle}")
        for s in ready:
            ordered.append(s)
            done.add(s.name)
        pending = [s for s in pending if s.name not in done]
    return ordered


def dependencies(stages: Sequence[Stage]) -> dict[str, set[str]]:
    """Each stage's name -> the names of the stages that write its inputs (a valid graph)."""
    producer = {out: s.name for s in stages for out in s.outputs}
    return {s.name: {producer[i] for i in s.inputs} - {s.name} for s in stages}


def chain_weights(ordered: Sequence[Stage]) -> dict[str, float]:
    """Each stage's name -> the summed `weight` of its heaviest chain of dependents, itself
    included, for stages in `order_stages`' order: a runner that may start several ready
    stages starts the heaviest chain first. Counting stages instead, as this did, let the
    small `cochange` and `firewall` go before `embed`, the longest stage after the history,
    which then started last and ended the run."""
    deps = dependencies(ordered)
    weight: dict[str, float] = {}
    for stage in reversed(ordered):
        after = [weight[s] for s, d in deps.items() if stage.name in d]
        weight[stage.name] = stage.weight + max(after, default=0.0)
    return weight
