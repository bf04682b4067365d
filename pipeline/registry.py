"""The default stage graph, in the order the pipeline runs it."""

from __future__ import annotations

from .stage import Stage


def default_stages() -> list[Stage]:
    from .tree import CHUNK

    stages: list[Stage] = [CHUNK]
    try:
        from .history import STAGES as HISTORY
    except ImportError:
        HISTORY = []
    try:
        from .retrieval import STAGES as RETRIEVAL
    except ImportError:
        RETRIEVAL = []
    return stages + list(HISTORY) + list(RETRIEVAL)
