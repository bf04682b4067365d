"""Scrubbing results before they leave the process.

The firewall runs on every string field of a result model (titles, snippets, diff lines, failure
notes), not on the rendered block: the block's own tags must survive, and an injected tag inside
a field must not. `clean` is cached for short strings, so repeated titles cost nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel

from ..store.redact import Redactor, redact_text
from ..store.vocabulary import INTENTS
from .firewall_passed import clean
from .models import CommitRef, Hit

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


_SCALARS = (int, float, bool, type(None))
# what the caller typed, echoed back in the answer: a secret pasted into a query must not come
# back verbatim (in a log, a transcript, a shared answer), so it passes the store's redactor
_ECHOED = frozenset({"query", "intended_change", "symbol", "file_filter"})
_FIELDS: dict[type, tuple[str, ...]] = {}

# fields whose values gitstrata makes itself, never text of the repository or the journal: git's
# object names, the dates it formats, the words of its own vocabularies. A value made that way
# passes as it is (nothing of that shape or from those lists holds an order); any other value
# of the field goes through the firewall like the rest. A preflight serves dozens of commit
# references, and these fields took a sixth of its firewall time on the bundles.
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?").fullmatch  # SHA-1 or SHA-256 object names
_SHORT = re.compile(r"[0-9a-f]{4,12}").fullmatch
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}").fullmatch
_INTENT = frozenset((*INTENTS, "unknown")).__contains__
_HIT_KIND = frozenset(("symbol", "commit", "failure", "invariant", "memory")).__contains__
_MADE_HERE: dict[type, dict[str, Callable[[str], object]]] = {
    CommitRef: {"sha": _SHA, "short": _SHORT, "date": _DATE, "intent": _INTENT},
    Hit: {"key": _SHA, "date": _DATE, "intent": _INTENT, "kind": _HIT_KIND},
}


def _scrub(value):
    """`value` with its strings cleaned; containers and models are cleaned in place."""
    kind = type(value)
    if kind is str:
        return clean(value)
    if kind in _SCALARS:
        return value
    if kind is list:  # most lists hold strings or models: no recursion for the strings
        for i, v in enumerate(value):
            k = type(v)
            if k in _SCALARS:
                continue
            c = clean(v) if k is str else _scrub(v)
            if c is not v:
                value[i] = c
        return value
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, BaseModel):
        return _scrub_fields(value, frozenset(), None)
    if isinstance(value, list):
        for i, v in enumerate(value):
            c = _scrub(v)
            if c is not v:
                value[i] = c
    elif isinstance(value, dict):
        for k, v in value.items():
            c = _scrub(v)
            if c is not v:
                value[k] = c
    return value


def scrub_items(items: list[T]) -> list[T]:
    """`items` (models or strings) cleaned in place, as a model's list field is; returned."""
    _scrub(items)
    return items


def scrub_model(model: M, redactor: Redactor | None = None) -> M:
    """Pass every string of a freshly built result model through the firewall, in place (the
    models are built per request, so nothing shared is touched); the echoed input is redacted
    first (by `redactor`, else the built-in rules). Returns the model."""
    return _scrub_fields(model, _ECHOED, redactor)


def scrub_fields(model: M, names: tuple[str, ...], redactor: Redactor | None = None) -> M:
    """`scrub_model` on the fields `names` of `model` only: the rest was scrubbed before (an
    answer built on a scrubbed part of an earlier one, `serve/answers.py`)."""
    return _scrub_fields(model, _ECHOED, redactor, names)


def _scrub_fields(
    model: M,
    echoed: frozenset[str],
    redactor: Redactor | None,
    names: tuple[str, ...] | None = None,
) -> M:
    if names is None:
        cls = type(model)
        names = _FIELDS.get(cls)
        if names is None:  # pydantic's class-level `model_fields` is a property: read it once
            names = _FIELDS[cls] = tuple(cls.model_fields)
    fields = model.__dict__  # where pydantic keeps the values: no descriptor per read
    made_here = _MADE_HERE.get(type(model))
    for name in names:
        value = fields[name]
        kind = type(value)
        if kind in _SCALARS:
            continue
        if made_here is not None and kind is str:
            made = made_here.get(name)
            if made is not None and made(value):
                continue
        if kind is str and name in echoed:
            cleaned = clean(redact_text(value, redactor) or value)
        else:
            cleaned = clean(value) if kind is str else _scrub(value)
        if cleaned is not value and cleaned != value:
            object.__setattr__(model, name, cleaned)
    return model
