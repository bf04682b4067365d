"""The default stage graph, in the order the pipeline runs it."""

from __future__ import annotations

from .history import STAGES as HISTORY
from .memories import MEMORIES
from .retrieval import STAGES as RETRIEVAL
from .stage import Stage
from .tree import CHUNK, LINKS


def default_stages() -> list[Stage]:
    return [CHUNK, *HISTORY, LINKS, *RETRIEVAL, MEMORIES]
