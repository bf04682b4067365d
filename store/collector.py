"""Python's cycle collector in a process whose start-up froze its modules out of it.

The command line imports a long-running command's modules with the collector paused and then
freezes what they made (`gc.freeze`), so that later passes do not scan them again. The serving
layer pauses the collector again over the index load when, and only when, the process started
that way (a library host keeps its collector as it set it). `gc.get_freeze_count()` would tell,
but it counts the frozen objects one by one: 9 ms for the MCP server's 85,000, on the way to its
first answer. The process records it here instead.
"""

from __future__ import annotations

import gc

_frozen = False


def freeze_start_up() -> None:
    """Freeze everything the start-up made out of the collector's passes, and remember it."""
    global _frozen
    gc.freeze()
    _frozen = True


def start_up_frozen() -> bool:
    """Whether this process froze its start-up (`freeze_start_up`)."""
    return _frozen
