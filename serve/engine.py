"""The engine: one loaded generation answering search and preflight.

`Engine.open(store_root)` maps the live generation; `reload()` builds a new `ServeIndex` for a
newer generation and swaps one reference, so a request in flight finishes on the index it
started with. Every text that leaves goes through the firewall in the facade / server.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from ..store.config import Config
from ..store.generations import Store
from .index import ServeIndex
from .models import PreflightReport
from .paths import repo_relative
from .preflight import build_preflight


class Engine:
    def __init__(self, store_root: Path, *, repo_root: Path | None = None, config: Config | None = None) -> None:
        self.store = Store(store_root)
        self.repo_root = repo_root
        self.config = config or Config.load(store_root)
        self._lock = threading.Lock()
        self.index = ServeIndex(self.store.require_live())

    @classmethod
    def open(cls, store_root: Path, *, repo_root: Path | None = None, config: Config | None = None) -> Engine:
        return cls(store_root, repo_root=repo_root, config=config)

    @property
    def generation(self) -> str:
        return self.index.name

    def reload(self) -> bool:
        """Switch to the live generation if it changed; True when swapped."""
        name = self.store.current_name()
        if name is None or name == self.index.name:
            return False
        fresh = ServeIndex(self.store.require_live())
        with self._lock:
            self.index = fresh
        return True

    def warm(self) -> None:
        self.index.warm()

    def preflight(
        self, file_path: str, symbol: str | None = None, intended_change: str | None = None
    ) -> PreflightReport:
        t0 = time.perf_counter()
        index = self.index  # one generation for the whole request
        path = repo_relative(self.repo_root, file_path)
        report, _target = build_preflight(index, path, symbol, intended_change, self.config.retrieval)
        report.generation = index.name
        report.latency_ms = round((time.perf_counter() - t0) * 1000, 3)
        return report
