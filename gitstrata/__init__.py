"""gitstrata: the memory code search lacks, built from git history.

`from gitstrata import Strata` is the Python API; everything else is imported lazily so that a
one-shot command only pays for what it uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from .facade import Strata

__all__ = ["Strata", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "Strata":
        from .facade import Strata

        return Strata
    raise AttributeError(f"module 'gitstrata' has no attribute {name!r}")
