"""The read side: loading, kernels, retrieval, preflight, graveyard, firewall, rendering, MCP.

This folder is installed as `gitstrata.serve`; importing it under any other name would make a
second copy of its classes (an `except` for one copy would not catch the other).
"""

if __name__ != "gitstrata.serve":
    raise ImportError(f"{__name__!r} is part of gitstrata: import gitstrata.serve instead")
