"""The firewall run ahead of the questions over the strings a generation's answers serve.

A question not asked before costs most of its time in the firewall: a first preflight on a real
index serves about sixty strings the process has not seen (commit subjects and reasons, the
+/- lines of its history, names, signatures, docstrings, the command listing a function's
history, search hits' titles and snippets), ~50 us each.
They come from the generation's tables, in the form answers give them, so a long-running
process can pass them through the firewall before anyone asks: `prescrub` does, and the
strings the firewall leaves unchanged are then a digest lookup (`firewall_passed`).

Invariants:
- Answers are the same with or without it: each string goes through `firewall_passed.clean`,
  the function every served string passes, which records only the texts the firewall returned
  unchanged; a text it changes is cleaned again when served.
- It yields to the requests it runs beside: it sleeps `REST_SECONDS` after every
  `SLICE_SECONDS` of work, releasing the interpreter, does nothing while a preflight or search
  began less than `QUIET_SECONDS` ago, and stops as soon as `stop` is set (the engine is
  replaced or the process closes).
- What it passed goes to the user's record of passed texts (`firewall_passed.save`) when it
  ends, so one-shot commands run beside the server find those strings passed too.
- Hot things first: the newest commits' subjects and reasons, then names and signatures, then
  docstrings, then the search hits' texts, then the lines of the history's excerpts, newest first. A process
  keeps at most `firewall_passed.MAX_ENTRIES` digests, so a very large history is covered from
  its newest end, and the run ends there.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..store.errors import GitstrataError
from .firewall_passed import clean, has_room, save

if TYPE_CHECKING:
    from .engine import Engine

log = logging.getLogger("gitstrata.mcp")

SLICE_SECONDS = 0.001  # work done before the thread rests
REST_SECONDS = 0.001  # the rest: the interpreter is free for a request
QUIET_SECONDS = 0.05  # no work this long after a preflight or search began


def served_strings(engine: Engine) -> Iterator[str]:
    """The strings a generation's preflight and search answers take from its tables, in the
    form the answers give them (see the module doc for the order)."""
    from .preflight import excerpt_lines, history_query

    index = engine.index
    reason_chars = engine.config.retrieval.reason_chars
    commits = index.table("commits", columns=["sha", "subject", "author_name"])
    shas = commits.column("sha").to_pylist()[::-1]  # the table is oldest first
    yield from commits.column("subject").to_pylist()[::-1]
    if reason_chars:
        for sha in shas:
            yield index.reason(sha, reason_chars)
    yield from dict.fromkeys(commits.column("author_name").to_pylist())
    for sym in index.symbols:
        yield sym.path
        yield sym.qualname
        yield sym.signature
        yield history_query(sym, whole_file=False)
    for sym in index.symbols:  # long texts: after the names
        yield sym.docstring
    searcher = engine.searcher
    if searcher is not None:
        for row in range(searcher.docs.n):
            yield from searcher.hit_text(row)
    if index.has("touches"):
        touches = index.table("touches", columns=["excerpt"]).column("excerpt")
        # not through the cache in which the answers keep their hot excerpts
        lines = excerpt_lines.__wrapped__
        for excerpt in reversed(touches.to_pylist()):
            if excerpt:
                yield from lines(excerpt)


def prescrub(
    strings: Iterator[str], stop: threading.Event | None = None, engine: Engine | None = None
) -> int:
    """Pass `strings` through the firewall's recording path, resting as the module doc says
    (and while `engine` began a preflight or search less than `QUIET_SECONDS` ago); returns how
    many were passed before the end, `stop`, or the process keeping as many passed texts as it
    may (`firewall_passed.MAX_ENTRIES`)."""
    done = 0
    started = time.perf_counter()
    for text in strings:
        if (stop is not None and stop.is_set()) or not has_room():
            break  # stopped, or nothing more would be kept
        while engine is not None and time.monotonic() - engine.asked_at < QUIET_SECONDS:
            if stop is not None and stop.is_set():
                return done
            time.sleep(REST_SECONDS)
        if text:
            clean(text)
        done += 1
        if time.perf_counter() - started >= SLICE_SECONDS:
            time.sleep(REST_SECONDS)
            started = time.perf_counter()
    return done


class Prescrub:
    """`prescrub` over an engine's served strings on a daemon thread."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.done = 0
        self.finished = threading.Event()

    def start(self) -> Prescrub:
        self._thread = threading.Thread(target=self._run, name="gitstrata-prescrub", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            strings = self._counted(served_strings(self._engine))
            self.done = prescrub(strings, self._stop, self._engine)
            if not self._stop.is_set():
                # into the user's record now, not at exit: a one-shot command run beside the
                # server (a hook, a script) finds its strings passed and skips the firewall
                save()
        except (GitstrataError, OSError) as exc:  # a generation removed under it: a cache only
            log.debug("prescrub stopped: %s", exc)
        finally:
            self.finished.set()

    def _counted(self, strings: Iterator[str]) -> Iterator[str]:
        for text in strings:
            self.done += 1  # progress for `status` (this thread alone writes it)
            yield text

    def stop(self) -> None:
        self._stop.set()


__all__ = ["Prescrub", "prescrub", "served_strings"]
