"""The artifact store: atomic publish, checks on read, collection, locking, relocation."""

from __future__ import annotations

import json
import multiprocessing as mp
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from gitstrata.store.errors import IndexCorrupt, IndexLocked, IndexMissing
from gitstrata.store.generations import GITIGNORE, Generation, Store
from gitstrata.store.manifest import Manifest, StageRecord
from gitstrata.store.schemas import FILES, FORMAT_VERSION


def _files_table(n: int) -> pa.Table:
    rows = [
        {
            "path": f"f{i}.py",
            "blob": f"{i:040x}",
            "size": i,
            "language": "python",
            "lines": i,
            "parser": "ast",
            "status": "indexed",
            "imports": [],
            "imports_resolved": [],
        }
        for i in range(n)
    ]
    return pa.Table.from_pylist(rows, schema=FILES)


def _publish(store: Store, n: int) -> Generation:
    writer = store.begin()
    info = writer.write_table("files", _files_table(n))
    manifest = Manifest(
        format_version=FORMAT_VERSION,
        generation=writer.name,
        created_at="2024-01-01T00:00:00Z",
        tool_version="test",
        repo_head="a" * 40,
        repo_tree="b" * 40,
        stages={"chunk": StageRecord(version=1, fingerprint="x", outputs={"files": info})},
    )
    return writer.publish(manifest)


def test_publish_and_read_back(tmp_path: Path) -> None:
    store = Store(tmp_path / ".strata")
    assert store.live() is None
    with pytest.raises(IndexMissing):
        store.require_live()
    gen = _publish(store, 3)
    assert gen.name == "gen-000001"
    assert (store.root / "CURRENT").read_text().strip() == "gen-000001"
    assert (store.root / ".gitignore").read_text() == GITIGNORE
    live = store.require_live()
    assert live.table("files").num_rows == 3
    assert live.verify() == []
    manifest = json.loads((live.path / "manifest.json").read_text())
    assert all(
        not o["file"].startswith("/") for o in manifest["stages"]["chunk"]["outputs"].values()
    )


def test_collect_keeps_live_and_previous(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    for n in range(1, 5):
        _publish(store, n)
    store.collect(keep=2)
    assert store.generations() == ["gen-000003", "gen-000004"]
    assert store.require_live().table("files").num_rows == 4


def test_checksum_and_size_mismatch_are_clear_errors(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    gen = _publish(store, 5)
    target = gen.path / "files.parquet"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    # the live generation is checked when it is opened: the error names it and the file
    with pytest.raises(
        IndexCorrupt, match="gen-000001 is damaged: .*files.parquet: checksum mismatch"
    ):
        store.require_live()
    with pytest.raises(IndexCorrupt, match="files.parquet: checksum mismatch"):
        Generation.open(gen.path).file("files", check="sha256")
    assert Generation.open(gen.path).verify()
    target.write_bytes(bytes(data[:-10]))
    with pytest.raises(IndexCorrupt, match="size differs"):
        Generation.open(gen.path).table("files")
    target.unlink()
    with pytest.raises(IndexCorrupt, match="files.parquet: missing artifact file") as exc:
        store.require_live()
    assert exc.value.hint == "run `gitstrata index`: it rebuilds what is damaged"


def test_unknown_format_version_is_refused(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    gen = _publish(store, 1)
    mpath = gen.path / "manifest.json"
    raw = json.loads(mpath.read_text())
    raw["format_version"] = 999
    mpath.write_text(json.dumps(raw))
    with pytest.raises(IndexCorrupt, match="index format 999"):
        store.live()


def test_moved_store_still_loads(tmp_path: Path) -> None:
    store = Store(tmp_path / "a" / ".strata")
    _publish(store, 2)
    moved = tmp_path / "elsewhere" / "index"
    moved.parent.mkdir()
    shutil.move(str(store.root), moved)
    live = Store(moved).require_live()
    assert live.table("files").num_rows == 2
    assert live.verify() == []


def test_aborted_writer_leaves_live_untouched(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    _publish(store, 2)
    writer = store.begin()
    writer.write_table("files", _files_table(7))
    writer.abort()
    assert not writer.tmp.exists()
    assert store.require_live().table("files").num_rows == 2


def _hold_lock(root: str, ready, release) -> None:
    with Store(Path(root)).lock():
        ready.set()
        release.wait(10)


def test_lock_serialises_and_times_out(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    ctx = mp.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    proc = ctx.Process(target=_hold_lock, args=(str(store.root), ready, release))
    proc.start()
    try:
        assert ready.wait(30)
        with pytest.raises(IndexLocked, match="another gitstrata index"), store.lock(timeout=0.2):
            pass
        waited = []
        release.set()
        with store.lock(timeout=30, on_wait=lambda: waited.append(True)):
            pass
    finally:
        release.set()
        proc.join(10)
    assert proc.exitcode == 0


def test_current_naming_garbage_is_corrupt(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    store.ensure()
    (store.root / "CURRENT").write_text("../../etc\n")
    with pytest.raises(IndexCorrupt, match="names no generation"):
        store.live()


def test_every_parquet_artifact_reads_back_with_its_declared_schema(tmp_path: Path) -> None:
    import datetime as dt

    from gitstrata.store.schemas import ARTIFACTS

    store = Store(tmp_path / "s")
    writer = store.begin()
    outputs = {}
    for name, spec in ARTIFACTS.items():
        if spec.format != "parquet" or spec.schema is None:
            continue
        row = {}
        for field in spec.schema:
            t = field.type
            if pa.types.is_timestamp(t):
                row[field.name] = dt.datetime(2024, 5, 9, 12, 0, 1, tzinfo=dt.UTC)
            elif pa.types.is_list(t) or pa.types.is_fixed_size_list(t):
                row[field.name] = (
                    [0.5] * (t.list_size if pa.types.is_fixed_size_list(t) else 1)
                    if pa.types.is_floating(t.value_type)
                    else [1]
                    if pa.types.is_integer(t.value_type)
                    else ["x"]
                )
            elif pa.types.is_string(t) or pa.types.is_large_string(t):
                row[field.name] = "x"
            elif pa.types.is_boolean(t):
                row[field.name] = True
            elif pa.types.is_floating(t):
                row[field.name] = 0.5
            else:
                row[field.name] = 1
        outputs[name] = writer.write_table(name, pa.Table.from_pylist([row], schema=spec.schema))
    manifest = Manifest(
        format_version=FORMAT_VERSION,
        generation=writer.name,
        created_at="2024-01-01T00:00:00Z",
        tool_version="test",
        repo_head="a" * 40,
        repo_tree="b" * 40,
        stages={"all": StageRecord(version=1, fingerprint="x", outputs=outputs)},
    )
    gen = writer.publish(manifest)
    for name in outputs:
        assert gen.table(name).schema.equals(ARTIFACTS[name].schema), name


def test_columns_read_back_and_a_column_the_file_lacks_is_corrupt(tmp_path: Path) -> None:
    live = _publish(Store(tmp_path / ".strata"), 3)
    got = live.table("files", columns=["blob", "path"])
    assert got.schema.names == ["blob", "path"]
    assert got.to_pylist() == _files_table(3).select(["blob", "path"]).to_pylist()
    with pytest.raises(IndexCorrupt, match="files.parquet: unreadable"):
        live.table("files", columns=["path", "no_such_column"])


def test_reading_a_table_does_not_import_the_dataset_layer(tmp_path: Path) -> None:
    # a one-shot process pays tens of milliseconds for pyarrow.dataset; one file needs no dataset
    _publish(Store(tmp_path / ".strata"), 3)
    got = _in_new_process(
        tmp_path / ".strata",
        "gen = store.require_live()\n"
        "assert gen.table('files', columns=['path']).num_rows == 3\n"
        "print('pyarrow.dataset' in sys.modules)\n",
    )
    assert got == "False"


def _in_new_process(root: Path, body: str) -> str:
    """What `body` prints in a fresh interpreter, with `sys` imported and `store` the store at
    `root` (this process has imported everything already)."""
    code = (
        "import sys\nfrom pathlib import Path\nfrom gitstrata.store.generations import Store\n"
        f"store = Store(Path({str(root)!r}))\n{body}"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def _data_address(table: pa.Table, column: str) -> int:
    """Where the column's characters are in memory: the same array, or a copy read again."""
    return int(table.column(column).chunk(0).buffers()[2].address)


def test_a_shared_generation_reads_each_column_once_and_is_the_one_reopened(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / ".strata")
    _publish(store, 4)
    plain = store.require_live()
    assert store.require_live() is not plain  # not shared: every open is its own
    gen = store.require_live().share()
    assert store.require_live() is gen  # the memory book's open gets the served instance
    first = gen.table("files", columns=["blob", "path"])
    # the cached columns are the very arrays read before; a new column is read from the file
    both = gen.table("files", columns=["path", "size"])
    assert _data_address(both, "path") == _data_address(first, "path")
    assert both.to_pylist() == _files_table(4).select(["path", "size"]).to_pylist()
    whole = gen.table("files")
    assert whole.schema.names == _files_table(4).schema.names
    assert whole.to_pylist() == _files_table(4).to_pylist() == plain.table("files").to_pylist()
    with pytest.raises(IndexCorrupt, match="files.parquet: unreadable"):
        gen.table("files", columns=["path", "no_such_column"])
    # a file rewritten in place (another size, mtime or inode) is read again
    path = gen.file("files")
    shutil.copyfile(path, tmp_path / "copy.parquet")
    path.unlink()
    shutil.copyfile(tmp_path / "copy.parquet", path)
    assert _data_address(gen.table("files", columns=["path"]), "path") != _data_address(
        first, "path"
    )
    assert gen.table("files", columns=["path"]).to_pylist() == first.select(["path"]).to_pylist()
    # a new manifest (a rebuilt generation of the same name) is a new instance
    del plain, gen, first, both, whole
    import gc

    gc.collect()
    assert store.require_live() is not store.require_live()


def test_a_served_table_is_copied_uncompressed_once_and_mapped_by_later_processes(
    tmp_path: Path,
) -> None:
    """The copy holds the columns served so far: the first reader's, then each column a later
    process reads from Parquet; the processes after those map every column they ask for."""
    store = Store(tmp_path / ".strata")
    _publish(store, 5)
    gen = store.require_live().share()
    assert gen.mapped_table("files") is None  # nothing served yet
    assert gen.table("files", columns=["path"]).to_pylist() == [
        {"path": f"f{i}.py"} for i in range(5)
    ]
    copy = gen.path / "mapped" / f"files-{gen.info('files').sha256[:16]}.arrow"
    assert [p.name for p in (gen.path / "mapped").iterdir()] == [copy.name]
    assert copy.stat().st_mode & 0o777 == 0o600
    assert gen.mapped_bytes() == copy.stat().st_size > 0  # what `status` reports beside the index
    mapped = gen.mapped_table("files")
    assert mapped is not None and mapped.to_pylist() == _files_table(5).select(["path"]).to_pylist()
    assert gen.verify() == [] and gen.problems() == {}  # a cache, not an artifact
    ask = (
        "rows = store.require_live().share().table('files', columns=['blob', 'size']).to_pylist()\n"
        "print('pyarrow.parquet' in sys.modules, rows[4])\n"
    )
    row = f"{{'blob': '{4:040x}', 'size': 4}}"
    # the next process reads the two columns the copy lacks from Parquet, and adds them to it
    assert _in_new_process(tmp_path / ".strata", ask) == f"True {row}"
    got = pa.ipc.open_file(str(copy)).read_all()
    assert got.schema.names == ["path", "blob", "size"]  # in the file's order
    # the one after maps them, without importing a Parquet reader; every column, asked as a
    # whole table, is read from the file once more and the copy then holds them all
    assert _in_new_process(tmp_path / ".strata", ask) == f"False {row}"
    whole = Generation.open(gen.path).share().table("files")
    assert whole.to_pylist() == _files_table(5).to_pylist()
    assert pa.ipc.open_file(str(copy)).read_all().to_pylist() == _files_table(5).to_pylist()


def test_a_mapped_copy_that_does_not_fit_is_replaced_and_copies_can_be_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path / ".strata")
    gen = _publish(store, 5)
    copy = gen.path / "mapped" / f"files-{gen.info('files').sha256[:16]}.arrow"
    copy.parent.mkdir()
    small = _files_table(2)
    with pa.ipc.new_file(str(copy), small.schema) as w:  # another table under the same name
        w.write_table(small)
    assert gen.mapped_table("files") is None
    served = Generation.open(gen.path).share()
    assert served.table("files").to_pylist() == _files_table(5).to_pylist()
    assert pa.ipc.open_file(str(copy)).read_all().num_rows == 5  # written again, whole
    copy.write_bytes(b"not arrow")
    assert gen.mapped_table("files") is None
    monkeypatch.setenv("GITSTRATA_MAPPED_COPIES", "off")
    copy.unlink()
    off = Generation.open(gen.path).share()
    assert off.table("files", columns=["path"]).num_rows == 5
    assert not copy.exists()


def test_a_carried_table_keeps_its_mapped_copy(tmp_path: Path) -> None:
    store = Store(tmp_path / ".strata")
    first = _publish(store, 3).share()
    first.table("files")
    writer = store.begin()
    info = writer.carry(first, "files")
    manifest = first.manifest.model_copy(update={"generation": writer.name})
    second = writer.publish(manifest)
    name = f"files-{info.sha256[:16]}.arrow"
    assert (second.path / "mapped" / name).samefile(first.path / "mapped" / name)
    mapped = second.mapped_table("files")
    assert mapped is not None and mapped.num_rows == 3
    assert second.verify() == []


def test_a_store_that_cannot_be_written_serves_the_columns_asked_for_from_parquet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gitstrata.store.generations as generations

    gen = _publish(Store(tmp_path / ".strata"), 4)
    # a read-only store (a published CI artifact); root may write anywhere, so say it
    monkeypatch.setattr(generations.os, "access", lambda path, mode: False)
    served = Generation.open(gen.path).share()
    got = served.table("files", columns=["path"])
    assert got.to_pylist() == [{"path": f"f{i}.py"} for i in range(4)]
    assert served.mapped_bytes() == 0 and served.mapped_table("files") is None
