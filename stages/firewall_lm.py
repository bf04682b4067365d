"""The `firewall` stage: the repository's own character-trigram model for the context firewall.

Trained on the code of HEAD's symbols and the commit messages (vendored files are not chunked,
so they never teach it), and calibrated at `calibration` x its own `percentile` window
perplexity; below `min_corpus_chars` it stays inactive and flags nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from ..store.charlm import TrigramModel
from ..store.config import FirewallConfig


def train(
    symbols: pa.Table, commits: pa.Table | None, cfg: FirewallConfig
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    corpus = [c for c in symbols.column("code").to_pylist() if c]
    if commits is not None and commits.num_rows:
        corpus += [m for m in commits.column("message").to_pylist() if m]
    return TrigramModel.train(corpus, cfg).state()
