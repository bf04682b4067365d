"""The parts of answers that depend on the served generation alone, kept for the next request.

A preflight of the same target asks the same lookups, the same related-hits search and the same
firewall pass over the same strings on every call of a generation; only the journal's warnings,
the invariants, the memories and the index notes can change between two calls. The engine keeps
the first part, scrubbed, here and builds the rest per request.

Invariants: an entry belongs to one `ServeIndex` (the first entry of a newer index empties the
cache, so a reload never serves the old generation's part) and to one configuration object (the
sections are frozen models; another one misses); at most `size` entries, the oldest dropped
first. Entries are shared by the answers built from them: the engine copies the lists it hands
out, and the models inside are treated as read-only.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Any


class AnswerCache:
    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._index: object | None = None
        self._entries: dict[Hashable, tuple[object, Any]] = {}
        self._lock = threading.Lock()

    def get(self, index: object, key: Hashable, cfg: object) -> Any:
        """The entry of `key` for `index` and `cfg`, else None."""
        entries = self._entries
        if index is not self._index:
            return None
        got = entries.get(key)
        if got is None or got[0] is not cfg:
            return None
        return got[1]

    def put(self, index: object, key: Hashable, cfg: object, value: Any) -> None:
        with self._lock:
            if index is not self._index:
                self._index, self._entries = index, {}
            entries = self._entries
            if key not in entries and len(entries) >= self.size:
                del entries[next(iter(entries))]
            entries[key] = (cfg, value)
