"""Beyond one machine: executors (one contract for all), the Ray executor's identical output,
index locations in object storage, and starting from a prebuilt index."""

from __future__ import annotations

import json
import operator
import os
import socket
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from gitstrata import Strata
from gitstrata.benchmarks import history_speed
from gitstrata.facade import EARLY_POOL_COMMITS
from gitstrata.pipeline.executor import (
    MAX_JOBS_PER_CPU,
    PRELOAD,
    Executor,
    LocalExecutor,
    make_executor,
)
from gitstrata.store.config import HistoryConfig
from gitstrata.store.errors import IndexCorrupt, InputError
from gitstrata.store.generations import Generation, Store
from gitstrata.store.remote import RemoteStore, display_uri

try:
    import ray  # noqa: F401

    HAVE_RAY = True
except ImportError:
    HAVE_RAY = False

needs_ray = pytest.mark.skipif(not HAVE_RAY, reason="Ray is not installed (the `ray` extra)")


@pytest.fixture(scope="module")
def ray_executor():
    if not HAVE_RAY:
        pytest.skip("Ray is not installed (the `ray` extra)")
    ex = make_executor("ray", jobs=2)
    yield ex
    ex.close()


@pytest.fixture(params=["inline", "local", "ray"])
def executor(request):
    if request.param == "ray":
        yield request.getfixturevalue("ray_executor")
        return
    ex = make_executor(request.param, jobs=2)
    yield ex
    ex.close()


@pytest.mark.parametrize("n", [0, 3, 700])
def test_executor_contract_map_keeps_input_order(executor: Executor, n: int) -> None:
    # a function every worker can import (Ray workers do not see the test modules)
    assert list(executor.map(operator.neg, range(n))) == [-i for i in range(n)]


@pytest.mark.parametrize("n", [0, 1, 5])
def test_executor_contract_units_keep_input_order(executor: Executor, n: int) -> None:
    assert list(executor.map_units(operator.neg, range(n))) == [-i for i in range(n)]
    assert executor.jobs >= 1


def test_executor_contract_apart_returns_what_the_call_returns(executor: Executor) -> None:
    assert executor.apart(operator.neg, 7) == -7


_APART = """
import json, os
from gitstrata.pipeline.executor import LocalExecutor, start_pool_server

two, one = LocalExecutor(2), LocalExecutor(1)
here = str(os.getpid())
# `/proc/self` names the process that reads it
seen = [two.apart(os.readlink, "/proc/self") == here]
start_pool_server()
seen += [two.apart(os.readlink, "/proc/self") == here, one.apart(os.readlink, "/proc/self") == here]
two.close()
print(json.dumps(seen))
"""


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc")
def test_a_unit_apart_runs_on_a_worker_once_the_fork_server_is_up() -> None:
    # in a fresh interpreter: before any fork server, the unit runs in this process (a server
    # started for it would make it wait for the server's imports); after, on a forked worker;
    # with one job, here either way
    done = subprocess.run(
        [sys.executable, "-c", _APART], capture_output=True, text=True, timeout=300, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [True, False, True]


_FIREWALL_APART = """
import hashlib, json, sys
from pathlib import Path
from gitstrata import Strata
from gitstrata.pipeline import retrieval
from gitstrata.pipeline.executor import start_pool_server

start_pool_server()
digests = []
for where, least in (("here", 10**12), ("apart", 0)):
    retrieval.APART_CHARS = least
    out = Path(sys.argv[2]) / where
    with Strata(sys.argv[1], index_dir=out) as s:
        s.index(jobs=2)
    gen = out / (out / "CURRENT").read_text().strip()
    files = sorted(p for p in (gen / "firewall_lm").rglob("*") if p.is_file())
    digests.append({p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in files})
    digests.append(retrieval.load_lm_state(gen / "firewall_lm")[1]["active"])
print(json.dumps(digests))
"""


def test_the_firewall_model_trained_on_a_worker_is_the_one_trained_here(tmp_path) -> None:
    # a history whose text is long enough for an active model (`min_corpus_chars`)
    repo = history_speed.make_synthetic(tmp_path / "repo", 60)
    done = subprocess.run(
        [sys.executable, "-c", _FIREWALL_APART, str(repo), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    here, active_here, apart, active_apart = json.loads(done.stdout.strip().splitlines()[-1])
    assert active_here and active_apart
    assert here and here == apart


_ORPHAN = """
import os, sys
import gitstrata.pipeline.forkserver_hook  # noqa: F401  (as the fork server imports it)
from multiprocessing import spawn

def start(data_pipe_closed: bool) -> None:
    r, w = os.pipe()
    if data_pipe_closed:
        os.close(w)  # the run that asked for this worker is gone
    try:
        spawn._main(r, -1)
    except Exception:
        sys.excepthook(*sys.exc_info())  # what the fork server's child does with it

start(True)
sys.stderr.write("--\\n")
try:
    raise ValueError("a worker that cannot start for another reason")
except ValueError:
    sys.excepthook(*sys.exc_info())
"""


def test_a_worker_whose_run_is_gone_before_it_starts_ends_quietly() -> None:
    # stopped while its pool started a worker, a run printed "terminated" and then the worker's
    # EOFError traceback; any other error of a worker's start still prints
    done = subprocess.run([sys.executable, "-c", _ORPHAN], capture_output=True, text=True)
    before, after = done.stderr.split("--\n")
    assert before == ""
    assert "ValueError: a worker that cannot start for another reason" in after


_GONE_MID_REQUEST = """
import socket, time
from multiprocessing import forkserver
from gitstrata.pipeline import executor

executor.start_pool_server()
server = forkserver._forkserver
deadline = time.monotonic() + 30
while server._forkserver_address is None and time.monotonic() < deadline:
    time.sleep(0.01)
# a run stopped between connecting to the fork server and sending it the new worker's pipes
with socket.socket(socket.AF_UNIX) as conn:
    conn.connect(server._forkserver_address)
pid = server._forkserver_pid
while time.monotonic() < deadline:
    time.sleep(0.02)
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            break
    except ChildProcessError:
        break
print("server ended")
"""


def test_a_fork_server_whose_run_is_gone_mid_request_ends_quietly() -> None:
    # a run stopped while it asked the fork server for a worker printed "terminated" and then
    # the server's EOFError traceback
    script = "import os\n" + _GONE_MID_REQUEST
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip() == "server ended"
    assert done.stderr == ""


def test_unknown_executor_is_an_input_error() -> None:
    with pytest.raises(InputError, match="unknown executor 'bogus'"):
        make_executor("bogus")
    assert isinstance(make_executor("local", jobs=3), LocalExecutor)


def _imported(name: str) -> bool:
    return name in sys.modules


def test_pool_workers_start_with_the_stages_modules_loaded() -> None:
    # the fork server imported them once; a worker it forks has them before its first item (a
    # module this test's own imports do not reach stays out)
    pool = LocalExecutor(2)
    try:
        names = [*PRELOAD, "gitstrata.serve.mcp_server"]
        assert list(pool.map_units(_imported, names)) == [True] * len(PRELOAD) + [False]
    finally:
        pool.close()


def test_the_early_fork_server_threshold_follows_the_commits_per_worker_default() -> None:
    assert 2 * HistoryConfig().commits_per_worker == EARLY_POOL_COMMITS


def _early(repo, index_dir: Path, *, rebuild: bool, jobs: int) -> bool:
    with Strata(repo, index_dir=index_dir) as s:
        return s._start_pool_server_early(rebuild=rebuild, jobs=jobs)


def test_a_full_index_of_a_long_history_starts_the_fork_server_early(make_repo, tmp_path) -> None:
    long = history_speed.make_synthetic(tmp_path / "long", EARLY_POOL_COMMITS)
    fresh = tmp_path / "fresh"
    assert _early(long, fresh, rebuild=False, jobs=2)
    assert not _early(long, fresh, rebuild=False, jobs=1)
    # a live index there: the run is incremental, unless it rebuilds
    small = make_repo()
    _history(small)
    live = tmp_path / "live"
    with Strata(small.path, index_dir=live) as s:
        s.index(jobs=1)
    assert not _early(long, live, rebuild=False, jobs=2)
    assert _early(long, live, rebuild=True, jobs=2)
    # a short history, or a repository without a commit (the run itself says what is wrong)
    assert not _early(small.path, fresh, rebuild=False, jobs=2)
    assert not _early(make_repo("empty").path, fresh, rebuild=False, jobs=2)


_CLI_ORDER = """
import json, sys
from multiprocessing import forkserver
from gitstrata.oneshot import run_index

seen = {}

def preload():
    # what the command line's imports of the pipeline find when they start
    seen["fork server running"] = forkserver._forkserver._forkserver_pid is not None
    seen["pipeline imported"] = "gitstrata.pipeline.runner" in sys.modules

run_index(__import__("pathlib").Path(sys.argv[1]), None, sys.argv[2], jobs=2, quiet=True,
          preload=preload)
print(json.dumps(seen))
"""


def test_the_command_line_starts_the_fork_server_before_importing_the_pipeline(
    tmp_path,
) -> None:
    # the fork server's imports overlap the command's own only when it starts first: the
    # command line imports the pipeline before indexing, and used to start it only after
    long = history_speed.make_synthetic(tmp_path / "long", EARLY_POOL_COMMITS)
    done = subprocess.run(
        [sys.executable, "-c", _CLI_ORDER, str(long), str(tmp_path / "idx")],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"fork server running": True, "pipeline imported": False}
    assert (tmp_path / "idx" / "CURRENT").is_file()


def test_how_the_history_is_split_is_in_no_fingerprint(make_repo, tmp_path) -> None:
    # the split never changes a table: tuning it must not make the next run redo the history
    repo = make_repo()
    _history(repo)
    out = tmp_path / "idx"
    with Strata(repo.path, index_dir=out) as s:
        s.index(jobs=1)
        (out / "config.json").write_text(
            json.dumps({"history": {"commits_per_worker": 3, "share_commits": 5}})
        )
        assert s.index(jobs=1).up_to_date
        (out / "config.json").write_text(json.dumps({"history": {"bulk_files": 3}}))
        report = s.index(jobs=1)
    assert not report.up_to_date and not report.stage("capsule").skipped


def test_local_jobs_are_bounded_by_the_cores() -> None:
    # `--jobs 100000` started worker processes (and stage threads) until the machine stalled
    cores = os.cpu_count() or 1
    assert LocalExecutor(100_000).jobs == MAX_JOBS_PER_CPU * cores
    assert LocalExecutor(None).jobs == cores
    assert LocalExecutor(1).jobs == 1


# ---------------------------------------------------------------- a repository to index


def _history(repo) -> list[str]:
    shas = []
    for i in range(24):
        files = {
            f"pkg/mod{i % 5}.py": "".join(
                f"def f{j}(x):\n    return x + {i * j}\n\n" for j in range(1 + i % 4)
            ),
            "pkg/config.toml": f"level = {i}\n",
        }
        if i % 6 == 5:
            files["pkg/util.py"] = f"def helper(v):\n    return v * {i}\n"
        msg = f"fix: off by one in f{i % 4}" if i % 3 == 0 else f"feat: step {i}"
        shas.append(repo.commit(msg, files))
    return shas


def _config(store: Path) -> None:
    store.mkdir(parents=True, exist_ok=True)
    # small commit ranges, so a distributed run really splits the history
    (store / "config.json").write_text(json.dumps({"history": {"commits_per_worker": 4}}))


def _tables(gen: Generation) -> dict[str, pa.Table]:
    out = {}
    for rec in gen.manifest.stages.values():
        for name, info in rec.outputs.items():
            if info.format != "dir":
                out[name] = gen.table(name)
    return out


def _same_index(a: Generation, b: Generation) -> None:
    ta, tb = _tables(a), _tables(b)
    assert sorted(ta) == sorted(tb)
    for name in ta:
        assert ta[name].equals(tb[name]), name
    assert a.manifest.repo_head == b.manifest.repo_head


@needs_ray
def test_ray_executor_writes_the_same_index_as_the_local_one(make_repo, tmp_path, ray_executor):
    repo = make_repo()
    _history(repo)
    local_out, ray_out = tmp_path / "local", tmp_path / "ray"
    _config(local_out)
    _config(ray_out)
    with Strata(repo.path, index_dir=local_out) as s:
        s.index(jobs=2)
    with Strata(repo.path, index_dir=ray_out) as s:
        report = s.index(executor="ray")
    assert report.stage("capsule").stats["workers"] > 1  # the history was split over tasks
    a, b = Store(local_out).require_live(), Store(ray_out).require_live()
    _same_index(a, b)
    # same checksums and the same fingerprints: a later local run reuses every stage
    for stage, rec in a.manifest.stages.items():
        other = b.manifest.stages[stage]
        assert rec.fingerprint == other.fingerprint, stage
        assert {n: o.sha256 for n, o in rec.outputs.items() if o.format != "dir"} == {
            n: o.sha256 for n, o in other.outputs.items() if o.format != "dir"
        }, stage


# ---------------------------------------------------------------- object storage


def test_display_uri_hides_credentials() -> None:
    shown = display_uri("s3://KEY:SECRET@bucket/idx?endpoint_override=h:9&secret_key=zz")
    assert "SECRET" not in shown and "zz" not in shown and "KEY" not in shown
    assert shown.startswith("s3://bucket/idx") and "endpoint_override" in shown


def test_publish_to_a_uri_and_serve_from_its_cache(make_repo, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo = make_repo()
    _history(repo)
    uri = (tmp_path / "bucket" / "idx").as_uri()
    with Strata(repo.path, index_dir=uri) as s:
        report = s.index(jobs=1)
    assert report.published and report.published.endswith(f"({report.generation})")
    remote_root = tmp_path / "bucket" / "idx"
    assert (remote_root / "CURRENT").read_text().strip() == report.generation
    # a reader anywhere (no checkout) downloads it once and answers from the cache
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with Strata(elsewhere, index_dir=uri) as reader:
        hits = reader.search("off by one", top_k=3)
        assert hits.hits
        assert reader.status()["generation"] == report.generation
    _same_index(Store(remote_root).require_live(), RemoteStore(uri).local.require_live())


def test_an_upload_cut_short_never_shows_a_half_generation(make_repo, tmp_path) -> None:
    repo = make_repo()
    shas = _history(repo)
    uri = (tmp_path / "bucket").as_uri()
    remote = RemoteStore(uri, tmp_path / "cache")
    local = tmp_path / "local"
    with Strata(repo.path, index_dir=local) as s:
        s.index(jobs=1)
    first = remote.push(Store(local).require_live())
    repo.commit("feat: one more", {"pkg/new.py": "def more():\n    return 1\n"})
    with Strata(repo.path, index_dir=local) as s:
        s.index(jobs=1)
    gen = Store(local).require_live()
    (gen.path / "touches.parquet").unlink()  # the upload fails part way through
    with pytest.raises(InputError, match="cannot upload"):
        remote.push(gen)
    assert remote.remote_current() == first
    served = RemoteStore(uri, tmp_path / "cache2").pull()
    assert served is not None and served.manifest.repo_head == shas[-1]
    assert not served.verify()


def test_a_damaged_cached_file_is_fetched_again(make_repo, tmp_path) -> None:
    repo = make_repo()
    _history(repo)
    uri = (tmp_path / "bucket").as_uri()
    with Strata(repo.path, index_dir=tmp_path / "local") as s:
        s.index(jobs=1)
    RemoteStore(uri, tmp_path / "cache").push(Store(tmp_path / "local").require_live())
    gen = RemoteStore(uri, tmp_path / "cache").pull()
    assert gen is not None
    target = gen.path / "commits.parquet"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, different bytes
    target.write_bytes(bytes(data))
    assert gen.verify()  # damaged
    again = RemoteStore(uri, tmp_path / "cache").pull()
    assert again is not None and not again.verify()
    assert again.table("commits").num_rows == 24


def test_a_remote_file_that_does_not_match_its_manifest_is_refused(make_repo, tmp_path) -> None:
    repo = make_repo()
    _history(repo)
    with Strata(repo.path, index_dir=tmp_path / "local") as s:
        s.index(jobs=1)
    uri = (tmp_path / "bucket").as_uri()
    name = RemoteStore(uri, tmp_path / "cache").push(Store(tmp_path / "local").require_live())
    bad = tmp_path / "bucket" / name / "symbols.parquet"
    bad.write_bytes(bad.read_bytes()[:-7] + b"garbage")
    with pytest.raises(IndexCorrupt, match="does not match its manifest"):
        RemoteStore(uri, tmp_path / "fresh-cache").pull()


def test_a_location_pyarrow_cannot_open_is_one_line(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    proc = subprocess.run(
        [sys.executable, "-m", "gitstrata", "status", "--index", "nosuch://bucket/x"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "not a location this pyarrow can open" in proc.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_publish_and_serve_through_an_s3_compatible_server(make_repo, tmp_path) -> None:
    moto_server = pytest.importorskip("moto.server", reason="moto is not installed (dev extra)")
    import pyarrow.fs as pafs

    port = _free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        env = {
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_EC2_METADATA_DISABLED": "true",
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
        }
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            s3 = pafs.S3FileSystem(
                endpoint_override=f"127.0.0.1:{port}",
                scheme="http",
                region="us-east-1",
                allow_bucket_creation=True,
            )
            s3.create_dir("indexes")
            repo = make_repo()
            _history(repo)
            uri = f"s3://indexes/team/repo?endpoint_override=127.0.0.1:{port}&scheme=http"
            proc = subprocess.run(
                [sys.executable, "-m", "gitstrata", "index", "--out", uri, "--json", "-j", "1"],
                cwd=repo.path,
                capture_output=True,
                text=True,
            )
            assert proc.returncode == 0, proc.stderr
            report = json.loads(proc.stdout)
            assert report["published"].startswith("s3://indexes/team/repo")
            current = s3.open_input_stream("indexes/team/repo/CURRENT").read().decode().strip()
            assert current == report["generation"]
            query = subprocess.run(
                [sys.executable, "-m", "gitstrata", "query", "off by one", "--index", uri],
                cwd=tmp_path,
                capture_output=True,
                text=True,
            )
            assert query.returncode == 0, query.stderr
            assert "off by one" in query.stdout
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    finally:
        server.stop()


# ---------------------------------------------------------------- starting from a prebuilt index


def test_from_a_prebuilt_index_then_incremental_equals_a_full_build(make_repo, tmp_path) -> None:
    repo = make_repo()
    shas = _history(repo)
    # CI built the index at an older commit and published it
    repo.git("checkout", "-q", shas[15])
    with Strata(repo.path, index_dir=tmp_path / "ci") as s:
        s.index(jobs=1)
    repo.git("checkout", "-q", "main")
    with Strata(repo.path, index_dir=tmp_path / "dev") as s:
        report = s.index(jobs=1, start_from=str(tmp_path / "ci"))
    assert report.notes and report.notes[0].startswith("started from the prebuilt index")
    capsule = report.stage("capsule")
    assert capsule.stats["mode"] == "incremental" and capsule.stats["new_commits"] == 8
    with Strata(repo.path, index_dir=tmp_path / "full") as s:
        s.index(jobs=1)
    _same_index(Store(tmp_path / "dev").require_live(), Store(tmp_path / "full").require_live())
    # a second run keeps the local index: it is newer than the prebuilt one
    with Strata(repo.path, index_dir=tmp_path / "dev") as s:
        again = s.index(jobs=1, start_from=str(tmp_path / "ci"))
    assert again.up_to_date and again.notes[0].startswith("kept the local index")


def test_a_prebuilt_index_of_another_history_is_refused(make_repo, tmp_path) -> None:
    repo = make_repo()
    _history(repo)
    with Strata(repo.path, index_dir=tmp_path / "ci") as s:
        s.index(jobs=1)
    repo.git("checkout", "-q", "-b", "other", "HEAD~3")
    repo.commit("feat: elsewhere", {"pkg/other.py": "def o():\n    return 0\n"})
    proc = subprocess.run(
        [sys.executable, "-m", "gitstrata", "index", "--from", str(tmp_path / "ci"), "-q"],
        cwd=repo.path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1
    assert "not an ancestor of HEAD" in proc.stderr and "Traceback" not in proc.stderr
    assert not (repo.path / ".strata" / "CURRENT").exists()  # nothing was adopted


# ---------------------------------------------------------------- what an answer cannot know


def test_a_shallow_clone_marks_its_cut_history(make_repo, tmp_path) -> None:
    repo = make_repo()
    _history(repo)
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "3", repo.path.as_uri(), str(clone)],
        check=True,
        capture_output=True,
    )
    with Strata(clone) as s:
        report = s.index(jobs=1)
        assert any(w.startswith("shallow clone") for w in report.warnings)
        pf = s.preflight("pkg/mod0.py", "f0")
        assert any(n.startswith("shallow clone: history is cut") for n in pf.index_notes)
        boundary = [o for o in pf.ownership if o.boundary]
        assert boundary and boundary[0].commit.sha in (clone / ".git" / "shallow").read_text()
        hits = s.search("off by one")
        assert any(n.startswith("shallow clone") for n in hits.index_notes)
    with Strata(repo.path) as full:
        full.index(jobs=1)
        pf = full.preflight("pkg/mod0.py", "f0")
        assert pf.index_notes == [] and not any(o.boundary for o in pf.ownership)


def test_answers_say_when_head_moved_past_the_index(make_repo) -> None:
    repo = make_repo()
    _history(repo)
    with Strata(repo.path) as s:
        s.index(jobs=1)
        assert s.preflight("pkg/mod1.py", "f0").index_notes == []
        new = repo.commit("feat: later", {"pkg/later.py": "def later():\n    return 2\n"})
        notes = s.preflight("pkg/mod1.py", "f0").index_notes
        assert len(notes) == 1 and new[:10] in notes[0] and "gitstrata index" in notes[0]
        assert s.search("later").index_notes == notes
