"""Artifact formats shared by both sides: schemas, manifest, generations, the journal, errors.

This folder is installed as `gitstrata.store`; importing it under any other name would make a
second copy of its classes (an `except` for one copy would not catch the other).
"""

if __name__ != "gitstrata.store":
    raise ImportError(f"{__name__!r} is part of gitstrata: import gitstrata.store instead")
