"""The render's attribute quoting is the standard library's (`xml.sax.saxutils.quoteattr`),
without importing that module on the one-shot path."""

from __future__ import annotations

import subprocess
import sys
from xml.sax.saxutils import quoteattr

from hypothesis import given, settings
from hypothesis import strategies as st

from gitstrata.serve.render import _quoteattr

tricky = st.text(alphabet=st.sampled_from(list("&<>\"'\n\r\t ab;#é\u2028")), max_size=40)


@settings(max_examples=500, deadline=None)
@given(st.one_of(tricky, st.text(max_size=60)))
def test_quoteattr_matches_the_standard_library(text: str) -> None:
    assert _quoteattr(text) == quoteattr(text)


def test_importing_the_render_leaves_urllib_request_unloaded() -> None:
    code = "import sys, gitstrata.serve.render; print('urllib.request' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
