"""What the MCP server does between spawn and its first answer: the SDK's server built without
the `rich` log handler, and Python's cycle collector paused from the load to the first answer
only in a process whose start-up froze its modules (the command line's), each in a fresh
interpreter so that nothing this test process imported or set decides the outcome."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import GitRepo
from test_mcp import build_repo, index


def _run(code: str, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_server_is_built_with_the_standard_log_handler(tmp_path) -> None:
    got = _run(
        """
        import json, logging, sys
        from pathlib import Path
        from gitstrata.serve.lifecycle import Lifecycle
        from gitstrata.serve.mcp_server import build_server
        import mcp.server.mcpserver.server as sdk

        hook = sdk.configure_logging
        build_server(Lifecycle(Path(sys.argv[1])))
        print(json.dumps({
            "rich": sorted(m for m in sys.modules if m == "rich" or m.startswith("rich.")),
            "handlers": [type(h).__name__ for h in logging.getLogger().handlers],
            "hook_restored": sdk.configure_logging is hook,
        }))
        """,
        str(tmp_path),
    )
    assert got == {"rich": [], "handlers": ["StreamHandler"], "hook_restored": True}


_LIFECYCLE = """
    import gc, json, sys
    from pathlib import Path
    from gitstrata.serve.lifecycle import Lifecycle

    if sys.argv[2] == "frozen":
        from gitstrata.store.collector import freeze_start_up

        freeze_start_up()
    else:
        gc.freeze()  # frozen by a host, not by the command line's start-up: not paused
    life = Lifecycle(Path(sys.argv[1]), wait_seconds=60)
    before = gc.isenabled()
    life.start()
    at_start = gc.isenabled()
    engine = life.acquire()
    loaded = gc.isenabled()
    life.note_answered()
    answered = gc.isenabled()
    life.close()
    print(json.dumps({"engine": engine is not None, "before": before, "at_start": at_start,
                      "loaded": loaded, "answered": answered}))
"""


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> GitRepo:
    repo = build_repo(tmp_path_factory.mktemp("startup") / "repo")
    index(repo)
    return repo


@pytest.mark.parametrize(
    ("start_up", "paused_until_answered"),
    [
        ("frozen", True),  # the command line's process: paused from the load to the answer
        ("host", False),  # a library host keeps its collector as it set it
    ],
)
def test_the_collector_waits_for_the_first_answer_only_after_a_frozen_start_up(
    indexed, start_up: str, paused_until_answered: bool
) -> None:
    got = _run(_LIFECYCLE, str(indexed.path), start_up)
    on = not paused_until_answered
    assert got == {"engine": True, "before": True, "at_start": on, "loaded": on, "answered": True}


def test_with_nothing_to_load_the_collector_resumes_after_the_first_look(tmp_path: Path) -> None:
    (tmp_path / "no-repository").mkdir()
    got = _run(_LIFECYCLE, str(tmp_path / "no-repository"), "frozen")
    # (whether the pause is still on just after `start` depends on how fast that look is)
    assert got["engine"] is False
    assert got["loaded"] is True  # the first look found nothing to answer fast with
