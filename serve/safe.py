"""Scrubbing results before they leave the process.

The firewall runs on every string field of a result model (titles, snippets, diff lines, failure
notes), not on the rendered block: the block's own tags must survive, and an injected tag inside
a field must not. `clean` is cached for short strings, so repeated titles cost nothing.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from .firewall import clean

M = TypeVar("M", bound=BaseModel)


def _scrub(value):
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, BaseModel):
        return scrub_model(value)
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items()}
    return value


def scrub_model(model: M) -> M:
    """A copy of `model` with every string passed through the firewall."""
    updates = {}
    for name in type(model).model_fields:
        value = getattr(model, name)
        cleaned = _scrub(value)
        if cleaned is not value:
            updates[name] = cleaned
    return model.model_copy(update=updates)
