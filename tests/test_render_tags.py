"""A commit's intent tag is shown once, also when its author tagged the subject the same way."""

from __future__ import annotations

import subprocess
import sys

from gitstrata.store.vocabulary import tagged


def test_a_subject_its_author_tagged_is_not_tagged_twice() -> None:
    assert tagged("docs", "[docs] Note the redirect") == "[docs] Note the redirect"
    assert tagged("docs", "[Docs] Note the redirect") == "[Docs] Note the redirect"
    assert tagged("bugfix", "[docs] Note the redirect") == "[bugfix] [docs] Note the redirect"
    assert tagged("feature", "Add the flag") == "[feature] Add the flag"


def test_query_output_shows_an_author_tagged_commit_once(make_repo) -> None:
    repo = make_repo()
    repo.commit("Add the walker", {"walk.py": "def walk(root):\n    return [root]\n"})
    repo.commit(
        "[docs] Document the walker's strict order", {"README.md": "# walk\nstrict order\n"}
    )
    run = [sys.executable, "-m", "gitstrata", "-C", str(repo.path)]
    subprocess.run([*run, "index", "-q"], check=True, capture_output=True)
    out = subprocess.run(
        [*run, "query", "document the walker strict order"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert "Document the walker's strict order" in out
    assert "[docs] [docs]" not in out
