"""Reproduce the hand-labelled commit sample of one repository.

Run as a plain script from a clone: `python benchmarks/labels/sample.py CLONE NAME`, where NAME is
the repository name used as the random seed (`click`, `express`, ...). Prints the sampled full
shas, one a line, sorted. Not part of the package: nothing imports it.
"""

from __future__ import annotations

import random
import subprocess
import sys

SAMPLE_SIZE = 60


def sample(clone: str, name: str, size: int = SAMPLE_SIZE) -> list[str]:
    """The `size` non-merge commits of HEAD drawn with `random.Random(name)`, sorted by sha."""
    out = subprocess.run(
        ["git", "-C", clone, "rev-list", "--no-merges", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    shas = sorted(line for line in out.splitlines() if line)
    return sorted(random.Random(name).sample(shas, size))


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python benchmarks/labels/sample.py CLONE NAME", file=sys.stderr)
        return 2
    for sha in sample(argv[1], argv[2]):
        print(sha)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
