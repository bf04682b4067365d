"""The batch side's engine: stage graph, incremental planning, executors, progress.

This folder is installed as `gitstrata.pipeline`; importing it under any other name would make a
second copy of its classes (an `except` for one copy would not catch the other).
"""

if __name__ != "gitstrata.pipeline":
    raise ImportError(f"{__name__!r} is part of gitstrata: import gitstrata.pipeline instead")
