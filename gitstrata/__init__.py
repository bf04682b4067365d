"""gitstrata: the memory code search lacks, built from git history.

`from gitstrata import Strata` is the Python API, and its typed errors are importable from here
too (`from gitstrata import GitstrataError, InputError`). Everything is imported lazily so that a
one-shot command only pays for what it uses.
"""

from __future__ import annotations

from ._version import __version__

# not `typing.TYPE_CHECKING`: importing `typing` here would widen the window at start-up in
# which a Ctrl-C reaches Python before the command line's handlers (gitstrata/entry.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .facade import Strata
    from .store.errors import (
        AmbiguousSymbol,
        ConfigError,
        EmptyRepository,
        GitError,
        GitstrataError,
        IndexCorrupt,
        IndexLocked,
        IndexMissing,
        InputError,
        JournalError,
        NotARepository,
        PipelineGraphError,
        StageError,
    )

__all__ = [
    "AmbiguousSymbol",
    "ConfigError",
    "EmptyRepository",
    "GitError",
    "GitstrataError",
    "IndexCorrupt",
    "IndexLocked",
    "IndexMissing",
    "InputError",
    "JournalError",
    "NotARepository",
    "PipelineGraphError",
    "StageError",
    "Strata",
    "__version__",
]
_ERRORS = frozenset(__all__) - {"Strata", "__version__"}


def __getattr__(name: str) -> Any:
    if name == "Strata":
        from .facade import Strata

        return Strata
    if name in _ERRORS:
        from .store import errors

        return getattr(errors, name)
    raise AttributeError(f"module 'gitstrata' has no attribute {name!r}")
