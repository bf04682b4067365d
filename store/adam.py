"""Adam, the optimiser the learned models of `serve/` train with (the firewall's screen and the
router's reader): full-batch steps from zero, the usual constants, the same arithmetic in every
run, so a model is a pure function of its training data."""

from __future__ import annotations

import numpy as np

BETA1, BETA2, EPS = 0.9, 0.999, 1e-8


class Adam:
    def __init__(self, rate: float, *shapes: tuple[int, ...]) -> None:
        self.rate = rate
        self.t = 0
        self.m = [np.zeros(s) for s in shapes]
        self.v = [np.zeros(s) for s in shapes]

    def step(self, *grads: np.ndarray | float) -> list[np.ndarray]:
        """The update to subtract from each parameter, given its gradient, in `shapes` order."""
        self.t += 1
        c1, c2 = 1 - BETA1**self.t, 1 - BETA2**self.t
        out = []
        for i, g in enumerate(grads):
            self.m[i] = BETA1 * self.m[i] + (1 - BETA1) * g
            self.v[i] = BETA2 * self.v[i] + (1 - BETA2) * g * g
            out.append(self.rate * (self.m[i] / c1) / (np.sqrt(self.v[i] / c2) + EPS))
        return out
