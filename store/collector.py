"""Python's cycle collector in gitstrata's own processes.

The command line imports a long-running command's modules with the collector paused and then
freezes what they made (`gc.freeze`), so that later passes do not scan them again. The serving
layer pauses the collector again over the index load when, and only when, the process started
that way (a library host keeps its collector as it set it). `gc.get_freeze_count()` would tell,
but it counts the frozen objects one by one: 9 ms for the MCP server's 85,000, on the way to its
first answer. The process records it here instead.

Batch work (`gitstrata index` and its pool workers) allocates bursts of objects that die young
without cycles: each `ast` parse of a version makes thousands of nodes, freed by reference count
as soon as its symbols are read. Python's default starts a pass over the young objects after
every 700 net new ones, so a parse set off dozens of passes that found nothing: indexing a
2,100-commit Python repository spent about 1 s of CPU in the collector over its processes,
0.75 s of it in the two workers of the per-symbol history. `batch_collection` makes a pass
wait for `BATCH_YOUNG` net new objects (0.25 s in all after it): the cycles that do form are
still freed, a few thousand objects later.
"""

from __future__ import annotations

import gc

_frozen = False

# net new objects between two passes over the young generation in batch work (Python: 700)
BATCH_YOUNG = 10_000


def freeze_start_up() -> None:
    """Freeze everything the start-up made out of the collector's passes, and remember it."""
    global _frozen
    gc.freeze()
    _frozen = True


def start_up_frozen() -> bool:
    """Whether this process froze its start-up (`freeze_start_up`)."""
    return _frozen


def batch_collection() -> None:
    """Set the collector for batch work in a process gitstrata owns (the command line's
    `index`, a pool worker): what exists now is frozen out of later passes (a worker's modules,
    imported by the fork server), and the young generation is collected every `BATCH_YOUNG`
    net new objects. Never in a library host's process: its collector is its own."""
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(BATCH_YOUNG, older, oldest)
