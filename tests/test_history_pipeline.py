"""The history stages through the runner: incremental runs, rewritten history, split ranges,
git failures, shallow clones, merges, submodules."""

from __future__ import annotations

import multiprocessing as mp
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

from gitstrata.pipeline.gitio import BlobReader, Git
from gitstrata.pipeline.history import (
    STAGES,
    _extract_shared,
    _Shares,
    extract_all,
    rev_list,
    stream_log,
)
from gitstrata.pipeline.runner import run_index
from gitstrata.pipeline.tree import CHUNK
from gitstrata.stages import capsule
from gitstrata.stages.patch import iter_commits
from gitstrata.store.config import Config, HistoryConfig, IndexConfig
from gitstrata.store.errors import GitError
from gitstrata.store.generations import Store

PIPE = [CHUNK, *STAGES]
TABLES = (
    "commits",
    "touches",
    "blame",
    "cochange_files",
    "cochange_symbols",
    "graph_nodes",
    "graph",
)

API = "from shop.models import Order\n\n\ndef create(data):\n    return Order(data)\n"
MODELS = "class Order:\n    def __init__(self, data):\n        self.data = data\n"
PARSER = "export function parseOrder(raw: string) {\n  return JSON.parse(raw);\n}\n"


def grow(repo, start: int, n: int) -> list[str]:
    """n commits that change the API and the (import-free) mobile parser together."""
    shas = []
    for i in range(start, start + n):
        intent = "fix" if i % 2 else "feat"
        shas.append(
            repo.commit(
                f"{intent}: order field {i}",
                {
                    "shop/api.py": API + f"\n\ndef field_{i}():\n    return {i}\n",
                    "mobile/parser.ts": PARSER.replace("raw)", f"raw + '{i}')"),
                },
            )
        )
    return shas


@pytest.fixture
def shop(git_repo):
    r = git_repo
    r.commit(
        "feat: shop", {"shop/api.py": API, "shop/models.py": MODELS, "mobile/parser.ts": PARSER}
    )
    grow(r, 1, 3)
    return r


def tables(gen_path: Path) -> dict[str, pa.Table]:
    store = Store(gen_path.parent)
    gen = store.live()
    assert gen is not None
    return {name: gen.table(name) for name in TABLES}


def stage_stats(report, name: str) -> dict:
    stage = report.stage(name)
    assert stage is not None
    return stage.stats


def test_index_writes_every_history_table(shop, tmp_path):
    report = run_index(shop.path, tmp_path / "s", stages=PIPE)
    t = tables(report.path)
    assert t["commits"].num_rows == 4
    cf = {(r["src"], r["dst"]): r for r in t["cochange_files"].to_pylist()}
    edge = cf[("mobile/parser.ts", "shop/api.py")]
    assert (edge["co_commits"], edge["hidden"], edge["confidence"]) == (4, True, 1.0)
    blame = [r for r in t["blame"].to_pylist() if r["qualname"] == "field_3"]
    assert [(r["lines"], r["intent"], r["load_bearing_share"]) for r in blame] == [
        (2, "bugfix", 1.0)
    ]
    nodes = t["graph_nodes"]
    assert nodes["key"].to_pylist()[:2] == ["mobile/parser.ts", "shop/api.py"]
    assert stage_stats(report, "capsule")["mode"] == "full"


def test_incremental_equals_full_rebuild(shop, tmp_path):
    out = tmp_path / "inc"
    run_index(shop.path, out, stages=PIPE)
    grow(shop, 4, 2)
    shop.git("mv", "shop/models.py", "shop/model.py")
    shop.commit("refactor: rename models", {"shop/model.py": MODELS + "\n\nVERSION = 2\n"})
    inc = run_index(shop.path, out, stages=PIPE)
    assert stage_stats(inc, "capsule")["mode"] == "incremental"
    assert stage_stats(inc, "capsule")["new_commits"] == 3
    assert stage_stats(inc, "blame")["reused"] == 0
    full = run_index(shop.path, tmp_path / "full", stages=PIPE)
    a, b = tables(inc.path), tables(full.path)
    for name in TABLES:
        assert a[name].equals(b[name]), name
    heads = set(
        a["touches"]
        .filter(pa.compute.equal(a["touches"]["path"], "shop/models.py"))["head_path"]
        .to_pylist()
    )
    assert heads == {"shop/model.py"}


def test_blame_reuses_unchanged_files(shop, tmp_path):
    out = tmp_path / "s"
    run_index(shop.path, out, stages=PIPE)
    shop.commit("docs: note", {"NOTES.md": "notes\n"})
    again = run_index(shop.path, out, stages=PIPE)
    stats = stage_stats(again, "blame")
    assert stats["blamed"] + stats["from_history"] == 1  # only the new file
    assert stats["reused"] == 3


def test_rewritten_history_is_detected_and_rebuilt(shop, tmp_path):
    out = tmp_path / "s"
    first = run_index(shop.path, out, stages=PIPE)
    dropped = shop.head()
    shop.git("reset", "-q", "--hard", "HEAD~1")
    shop.commit("fix: a different ending", {"shop/models.py": MODELS + "\nX = 1\n"}, days=30)
    again = run_index(shop.path, out, stages=PIPE)
    assert stage_stats(again, "capsule")["mode"] == "rewritten"
    commits = tables(again.path)["commits"]["sha"].to_pylist()
    assert dropped not in commits and shop.head() in commits
    assert first.generation != again.generation
    full = run_index(shop.path, tmp_path / "full", stages=PIPE)
    for name in TABLES:
        assert tables(again.path)[name].equals(tables(full.path)[name]), name


def test_a_shared_range_begins_each_of_its_commits_once() -> None:
    shares = _Shares(mp.get_context("forkserver"), 2)
    shares.begun[0], shares.limit[0] = 0, 10
    walk = shares.claimed(0, iter(range(10)))
    first = [next(walk) for _ in range(3)]
    assert shares.left(0) == 7
    assert shares.take_half(0, 5) == (6, 10)  # 3..5 stay, 6..9 are another worker's
    assert shares.take_half(0, 4) is None  # three left: not worth a second worker
    assert first + list(walk) == [0, 1, 2, 3, 4, 5]


@pytest.mark.slow
def test_an_idle_worker_takes_the_older_half_of_a_long_range(git_repo):
    """One range of a single commit, one of all the others: the worker done with the first
    takes commits the other has not begun, and the tables are those of one range."""
    for i in range(90):
        body = "".join(f"def f{k}(x):\n    return x + {k * i}\n\n" for k in range(i % 6 + 1))
        git_repo.commit(f"feat: step {i}", {f"app/m{i % 4}.py": body, "app/main.py": body})
    git = Git(git_repo.path)
    shas = rev_list(git, git_repo.head())
    cfg = HistoryConfig()
    one = capsule.finalize(*extract_all(git, shas, cfg, workers=1)[:2])
    cs: list[pa.Table] = []
    ts: list[pa.Table] = []
    begun: list[int] = []

    def add(result) -> None:
        cs.append(result[0])
        ts.append(result[1])
        begun.append(result[2]["commits"])

    ranges = [shas[:1], shas[1:]]
    shared = _extract_shared([(str(git.root), r, cfg, False, None) for r in ranges], 2, 1, add)
    assert shared >= 1 and len(begun) == 2 + shared
    assert sum(begun) == len(shas)
    many = capsule.finalize(cs, ts)
    assert one[0].equals(many[0]) and one[1].equals(many[1])


@pytest.mark.slow
def test_split_ranges_equal_one_range(shop):
    git = Git(shop.path)
    shas = rev_list(git, shop.head())
    one = capsule.finalize(*extract_all(git, shas, HistoryConfig(), workers=1)[:2])
    split = extract_all(git, shas, HistoryConfig(commits_per_worker=1), workers=2)
    assert split[2]["workers"] == 2
    many = capsule.finalize(*split[:2])
    assert one[0].equals(many[0]) and one[1].equals(many[1])
    # any order of any partition gives the same tables
    with BlobReader(git) as reader:
        parts = [
            capsule.build(iter_commits(stream_log(git, [s])), reader.read, HistoryConfig())
            for s in shas
        ]
    parts.reverse()
    again = capsule.finalize([p[0] for p in parts], [p[1] for p in parts])
    assert again[0].equals(one[0]) and again[1].equals(one[1])


def test_max_commits_bounds_the_depth(shop, tmp_path):
    cfg = Config(index=IndexConfig(max_commits=2))
    report = run_index(shop.path, tmp_path / "s", stages=PIPE, config=cfg)
    commits = tables(report.path)["commits"]
    assert commits["sha"].to_pylist() == rev_list(Git(shop.path), shop.head())[:2][::-1]


def test_git_failing_mid_stream_publishes_nothing(shop, tmp_path):
    git = Git(shop.path)
    with pytest.raises(GitError):
        list(stream_log(git, ["0" * 40]))
    # lose an old blob: `git log -p` dies after printing the newer commits
    first = rev_list(git, shop.head())[-1]
    blob = git.run("rev-parse", f"{first}:shop/models.py").strip()
    obj = shop.path / ".git" / "objects" / blob[:2] / blob[2:]
    obj.chmod(0o644)
    obj.unlink()
    out = tmp_path / "s"
    with pytest.raises(GitError, match="mid-stream"):
        run_index(shop.path, out, stages=[*STAGES[:1]])
    assert Store(out).live() is None


def test_shallow_clone_indexes_what_is_there(shop, tmp_path):
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "2", f"file://{shop.path}", str(clone)],
        check=True,
        capture_output=True,
    )
    report = run_index(clone, tmp_path / "s", stages=PIPE)
    assert stage_stats(report, "capsule")["shallow"] is True
    assert report.shallow
    assert tables(report.path)["commits"].num_rows == 2


def test_merges_octopus_submodule_symlink(make_repo, tmp_path):
    r = make_repo("m")
    r.commit("base", {"a.py": "def a():\n    return 1\n"})
    for name in ("x", "y"):
        r.git("checkout", "-q", "-b", name, "main")
        r.commit(f"feat: {name}", {f"{name}.py": f"def {name}():\n    return 2\n"})
    r.git("checkout", "-q", "main")
    r.git("merge", "-q", "--no-ff", "-m", "octopus", "x", "y")
    sub = make_repo("sub")
    sub.commit("sub", {"s.txt": "s\n"})
    r.git(
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        f"file://{sub.path}",
        "vendor/sub",
    )
    (r.path / "link.py").symlink_to("a.py")
    r.commit("chore: submodule and link")
    report = run_index(r.path, tmp_path / "s", stages=PIPE)
    t = tables(report.path)
    assert t["commits"]["message"].to_pylist() == [
        "base",
        "feat: x",
        "feat: y",
        "chore: submodule and link",
    ]
    odd = {
        row["path"]: row["symbol_id"]
        for row in t["touches"].to_pylist()
        if row["path"] in ("vendor/sub", "link.py")
    }
    assert odd == {"vendor/sub": None, "link.py": None}
