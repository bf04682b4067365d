"""Imported by the local pools' fork server alone (`executor.pool_context`), never elsewhere.

A run stopped by a signal while its pool starts a worker closes the pipe that carries the
worker's start-up data; the worker the fork server has just forked then fails to read it, and
multiprocessing prints that `EOFError`'s traceback (through `sys.excepthook`, which a forked
child inherits) on the terminal of a command that already said "terminated". Such a worker now
ends quietly: nobody is left to start it for. Any other error of a worker's start is printed as
before.
"""

from __future__ import annotations

import sys
from types import TracebackType

_previous = sys.excepthook


def _while_starting(tb: TracebackType | None) -> bool:
    """Whether the traceback passes through multiprocessing's reading of a worker's start-up
    data (`multiprocessing.spawn._main`)."""
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name == "_main" and code.co_filename.endswith("spawn.py"):
            return True
        tb = tb.tb_next
    return False


def _quiet_orphan(
    kind: type[BaseException], value: BaseException, tb: TracebackType | None
) -> None:
    if issubclass(kind, EOFError) and _while_starting(tb):
        return
    _previous(kind, value, tb)


sys.excepthook = _quiet_orphan
