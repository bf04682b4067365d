"""Imported by the local pools' fork server alone (`executor.pool_context`), never elsewhere.

A run stopped by a signal while its pool starts a worker leaves one of two reads without data,
and multiprocessing prints that `EOFError`'s traceback (through `sys.excepthook`, which a forked
child inherits) on the terminal of a command that already said "terminated":
- the worker the fork server has just forked reads its start-up data from a closed pipe;
- the fork server itself reads the request's file descriptors from a connection the run closed
  before it sent them (the server then ends, as it would once the run is gone).
Both now end quietly: nobody is left to start a worker for. Any other error is printed as before.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import TracebackType

_previous = sys.excepthook


# where multiprocessing reads a worker's start: its start-up data in the new worker, and the
# request's file descriptors in the fork server's loop
_STARTING = {("_main", "spawn.py"), ("main", "forkserver.py")}


def _while_starting(tb: TracebackType | None) -> bool:
    """Whether the traceback passes through multiprocessing's reading of a worker's start
    (`_STARTING`)."""
    while tb is not None:
        code = tb.tb_frame.f_code
        if (code.co_name, Path(code.co_filename).name) in _STARTING:
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
