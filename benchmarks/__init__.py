"""Fixture generator, query splits, baselines, metrics and the speed runs behind RESULTS.md.

This folder is installed as `gitstrata.benchmarks`; importing it under any other name would make a
second copy of its classes (an `except` for one copy would not catch the other).
"""

if __name__ != "gitstrata.benchmarks":
    raise ImportError(f"{__name__!r} is part of gitstrata: import gitstrata.benchmarks instead")
