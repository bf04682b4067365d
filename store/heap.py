"""Giving the C heap's free memory back to the system.

glibc keeps what a process frees in its heap for later allocations, and after the first large
free it raises the size below which a block comes from that heap instead of a mapping of its
own. An index frees a great deal between its phases (a stage's Python objects and tables, the
embedder fit's n x ell blocks), and the next phase would otherwise peak on top of that kept
memory. Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable


def release_free_heap() -> None:
    """Return the C heap's free pages to the system (glibc's `malloc_trim(0)`)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(ctypes.c_size_t(0))


@functools.cache
def _malloc_trim() -> Callable[..., int] | None:
    """glibc's `malloc_trim`, looked up once; None where the C library has none."""
    try:
        return ctypes.CDLL(None).malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None
