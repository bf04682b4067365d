"""One module per stage; each turns inputs into Arrow tables and has no I/O policy of its own.

This folder is installed as `gitstrata.stages`; importing it under any other name would make a
second copy of its classes (an `except` for one copy would not catch the other).
"""

if __name__ != "gitstrata.stages":
    raise ImportError(f"{__name__!r} is part of gitstrata: import gitstrata.stages instead")
