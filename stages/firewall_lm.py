"""The `firewall` stage: the repository's own character-trigram model for the context firewall.

Trained on the code of HEAD's symbols and the commit messages (vendored files are not chunked,
so they never teach it), and calibrated at `calibration` x its own `percentile` window
perplexity; below `min_corpus_chars` it stays inactive and flags nothing.

Refresh (`update`): the counts of a corpus are the sum of its texts' counts, so after a small
change the previous counts plus the added texts' minus the removed texts' are exactly the counts
a full training gives. The threshold, which needs a pass over the whole corpus, is kept until the
texts changed since the last calibration exceed `RECALIBRATE_FRACTION` of the corpus; then (and
whenever the update cannot be exact: another configuration, an inactive or truncated corpus) the
model is trained again from scratch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..store.charlm import TrigramModel, count_texts
from ..store.config import FirewallConfig

# share of the corpus's characters changed since the last calibration that triggers a new one
RECALIBRATE_FRACTION = 0.05


def corpus(symbols: pa.Table, commits: pa.Table | None) -> pa.Array:
    """The training texts in training order (non-empty code, then non-empty messages)."""
    parts = [symbols.column("code")]
    if commits is not None and commits.num_rows:
        parts.append(commits.column("message"))
    arrays = [chunk.cast(pa.large_string()) for col in parts for chunk in col.chunks if len(chunk)]
    texts = pa.concat_arrays(arrays) if arrays else pa.array([], pa.large_string())
    return texts.filter(pc.fill_null(pc.greater(pc.utf8_length(texts), 0), False))


def _meta(meta: dict[str, Any], cfg: FirewallConfig, drift: int) -> dict[str, Any]:
    return {**meta, "config": cfg.fingerprint_payload(), "drift_chars": drift}


def train(
    symbols: pa.Table, commits: pa.Table | None, cfg: FirewallConfig
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    return train_texts(corpus(symbols, commits), cfg)


def train_texts(
    texts: pa.Array, cfg: FirewallConfig
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """`train` on the texts `corpus` chose (a caller that measured them first)."""
    arrays, meta = TrigramModel.train(texts.to_pylist(), cfg).state()
    return arrays, _meta(meta, cfg, 0)


def _multiset_delta(old: pa.Array, new: pa.Array) -> tuple[list[str], list[str]]:
    """(added, removed): texts whose count in `new` is above (below) their count in `old`,
    repeated by the difference."""
    vo, vn = pc.value_counts(old), pc.value_counts(new)
    to = pa.table({"t": vo.field("values"), "o": vo.field("counts")})
    tn = pa.table({"t": vn.field("values"), "n": vn.field("counts")})
    j = tn.join(to, "t", join_type="full outer")
    diff = pc.subtract(pc.fill_null(j.column("n"), 0), pc.fill_null(j.column("o"), 0))
    j = j.append_column("d", diff).filter(pc.not_equal(diff, 0))
    added: list[str] = []
    removed: list[str] = []
    for t, d in zip(j.column("t").to_pylist(), j.column("d").to_pylist(), strict=True):
        (added if d > 0 else removed).extend([t] * abs(d))
    return added, removed


def update(
    arrays: dict[str, np.ndarray],
    meta: dict[str, Any],
    old: pa.Array,
    new: pa.Array,
    cfg: FirewallConfig,
) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
    """The model of corpus `new` from the model (`arrays`, `meta`) of corpus `old`, or None
    when it must be trained from scratch."""
    size = int(pc.sum(pc.utf8_length(new)).as_py() or 0)
    if (
        meta.get("config") != cfg.fingerprint_payload()
        or not meta.get("active")
        or int(meta.get("corpus_chars", cfg.max_corpus_chars)) >= cfg.max_corpus_chars
        or size >= cfg.max_corpus_chars
        or size < cfg.min_corpus_chars
        or len(arrays["tri"]) != cfg.buckets
    ):
        return None
    added, removed = _multiset_delta(old, new)
    drift = int(meta.get("drift_chars", 0)) + sum(map(len, added)) + sum(map(len, removed))
    if drift > RECALIBRATE_FRACTION * size:
        return None
    plus = count_texts(added, cfg.buckets)
    minus = count_texts(removed, cfg.buckets)
    out = {}
    for name, p, m in zip(("tri", "bi", "uni"), plus, minus, strict=True):
        counts = arrays[name].astype(np.int64) + p - m
        if counts.min(initial=0) < 0:
            return None  # `old` was not the corpus of this model
        out[name] = counts.astype(np.int32)
    return out, _meta({**meta, "corpus_chars": size}, cfg, drift)
