"""The chunk truth benchmark scores what `parse_source` returns against a hand-made list."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gitstrata.benchmarks import chunk_truth

SOURCE = """res.send = function send(body) {
  return body;
};
app.get('/', function (req, res) {});
function helper() {}
"""


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "web"
    (repo / "lib").mkdir(parents=True)
    (repo / "lib" / "response.js").write_text(SOURCE)
    env = ["-c", "user.name=A", "-c", "user.email=a@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), *env, "commit", "-q", "-m", "init"], check=True)
    return repo


def test_scores_against_the_list(tmp_path: Path) -> None:
    truth = tmp_path / "truth"
    truth.mkdir()
    (truth / "javascript.tsv").write_text(
        "# a comment\n"
        "web\tlib/response.js\tres.send\tfunction\t1\t3\n"
        "web\tlib/response.js\thelper\tfunction\t5\t5\n"
        "web\tlib/response.js\tmissing\tfunction\t4\t4\n"
    )
    (truth / "go.tsv").write_text("mux\troute.go\tRoute\tstruct\t1\t2\n")
    scores = {
        s.language: s
        for s in chunk_truth.measure({"web": _repo(tmp_path)}, "auto", truth_dir=truth)
    }
    js = scores["javascript"]
    assert js.found == {
        ("lib/response.js", "res.send", "function", 1, 3),
        ("lib/response.js", "helper", "function", 5, 5),
    }
    assert (js.recall(), js.precision()) == (2 / 3, 1.0)
    assert scores["go"].skipped == ["mux"] and not scores["go"].truth
    table = chunk_truth.table(list(scores.values()))
    assert "| javascript | 3 | 2 | 66.7% | 100.0% |" in table
    assert "| go | skipped: no mux |" in table
    assert "missed  ('lib/response.js', 'missing', 'function', 4, 4)" in chunk_truth.misses([js])


def test_the_committed_lists_parse() -> None:
    truth = chunk_truth.load_truth()
    assert set(truth) == {"go", "javascript", "python", "rust", "typescript"}
    for per_bundle in truth.values():
        rows = [r for rows in per_bundle.values() for r in rows]
        assert len(rows) == len(set(rows))
        assert all(0 < r[3] <= r[4] for r in rows)
