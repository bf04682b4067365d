"""`benchmarks.history_speed`: its tables saved by one run and compared by another."""

from __future__ import annotations

import json

from gitstrata.benchmarks import history_speed


def _run(capsys, *args) -> dict:
    assert history_speed.main([*map(str, args), "--json", "--pydriller-limit", "1"]) == 0
    return json.loads(capsys.readouterr().out)


def test_saved_tables_are_compared_row_for_row(tmp_path, capsys):
    repo = history_speed.make_synthetic(tmp_path / "a", 25)
    saved = tmp_path / "tables"
    first = _run(capsys, repo, "--save-tables", saved)
    assert first["commits"] == 25 and "same_as" not in first
    again = _run(capsys, repo, "--same-as", saved)
    assert again["same_as"]["identical"] is True
    assert again["same_as"]["touches_rows"] == [first["touches"], first["touches"]]
    longer = history_speed.make_synthetic(tmp_path / "b", 26)  # the same history, one more commit
    other = _run(capsys, longer, "--same-as", saved)
    assert other["same_as"]["identical"] is False
    assert other["same_as"]["commits"] is False
    assert other["same_as"]["commits_rows"] == [25, 26]
