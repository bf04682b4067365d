"""The co-change graph as the read side uses it: CSR arrays memory-mapped from Arrow IPC.

Node i's out-edges are rows [edge_start[i], edge_start[i] + edge_count[i]) of the edge arrays.
Keys are file paths (kind "file") and symbol ids (kind "symbol").
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..store.generations import Generation


class CoGraph:
    def __init__(self, gen: Generation) -> None:
        nodes = gen.table("graph_nodes")
        edges = gen.table("graph")
        self.keys: list[str] = nodes.column("key").to_pylist()
        self.kinds: list[str] = nodes.column("kind").to_pylist()
        self.start = nodes.column("edge_start").to_numpy()
        self.count = nodes.column("edge_count").to_numpy()
        self.dst = edges.column("dst").to_numpy()
        self.weight = edges.column("weight").to_numpy()
        self.rank = edges.column("rank_score").to_numpy()
        self.linked = edges.column("import_linked").to_numpy(zero_copy_only=False)

    @cached_property
    def node_of(self) -> dict[str, int]:
        return {k: i for i, k in enumerate(self.keys)}

    def neighbours(self, node: int) -> list[tuple[int, float, bool]]:
        """(partner, W, import-linked) of each out-edge of `node`."""
        return self._edges(node, self.weight)

    def ranked_neighbours(self, node: int) -> list[tuple[int, float, bool]]:
        """(partner, rank_score, import-linked): how likely each partner is to change when
        `node` does, the order preflight lists them in."""
        return self._edges(node, self.rank)

    def _edges(self, node: int, strength: np.ndarray) -> list[tuple[int, float, bool]]:
        s, n = int(self.start[node]), int(self.count[node])
        if n == 0:
            return []
        return list(
            zip(
                self.dst[s : s + n].tolist(),
                strength[s : s + n].tolist(),
                self.linked[s : s + n].tolist(),
                strict=True,
            )
        )
