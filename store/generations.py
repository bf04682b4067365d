"""The artifact store: generations written completely, then published by one atomic rename.

Layout of a store folder (`.strata/` by default, or any `--out DIR`):

    CURRENT          the live generation's folder name, replaced with os.replace()
    gen-NNNNNN/      manifest.json + the artifacts named in it
    journal/         append-only records (never touched here)
    index.lock       held by the one `gitstrata index` allowed to run
    .gitignore       ignores everything but invariants.okf.json, memories.jsonl and config.json

Invariants: a reader only ever sees a generation whose manifest was written last, after every
artifact was flushed; `CURRENT` names a complete folder or the previous one; only the live and
the previous generations are kept. Nothing inside a generation is an absolute path.

A generation is checked against its manifest's sha256s the first time it is opened as the live
one, and the verdict is kept (`verified.json`, beside the manifest) with the size, mtime and inode
of every file it covered: a later open re-hashes only when one of those changed, so a one-shot
query pays a few dozen `stat` calls, not a read of the whole index. A generation that fails the
check is named in the error (`IndexCorrupt`), and `salvage()` hands the indexer what is still
sound so that `gitstrata index` rebuilds only the stages whose outputs are damaged.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import threading
import weakref
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .errors import IndexCorrupt, IndexMissing, InputError
from .lock import FileLock
from .manifest import Manifest, OutputInfo
from .private import FILE_MODE, private_dir, tighten_tree, write_private

# Arrow (and numpy under it, a tenth of a second) is imported by the calls that read or write a
# table, not here: the MCP server builds a `Store` before it answers `initialize`
if TYPE_CHECKING:
    from collections.abc import Callable

    import pyarrow as pa

_T = TypeVar("_T")

GEN_RE = re.compile(r"^gen-(\d{6,})$")
# The store's own .gitignore ignores itself too, so an indexed repository's `git status` stays
# clean; what is meant to be committed (the team's invariants, the config) shows up as untracked
# once it exists.
GITIGNORE = (
    "# written by gitstrata: everything here is rebuilt from git, except the team knowledge\n"
    "# and the configuration below, which are meant to be committed\n"
    "*\n"
    "!invariants.okf.json\n"
    "!memories.jsonl\n"
    "!config.json\n"
)
# What earlier releases wrote (it un-ignored itself, so every indexed repository showed the
# folder as untracked): replaced when found verbatim, a user's own edits are never touched.
_OLD_GITIGNORES = frozenset(
    {
        "# written by gitstrata: everything here is rebuilt from git, except the team knowledge\n"
        "# and the configuration below, which are meant to be committed\n"
        "*\n!invariants.okf.json\n!config.json\n",
        "# written by gitstrata: everything here is rebuilt from git except team knowledge\n"
        "*\n!.gitignore\n!invariants.okf.json\n!config.json\n",
    }
)
REBUILD = "gitstrata index --rebuild"
REPAIR = "run `gitstrata index`: it rebuilds what is damaged"
VERIFIED = "verified.json"  # beside the manifest: the stat signature of the last sound check
MAPPED = "mapped"  # beside the manifest: uncompressed copies of the Parquet artifacts served
SYNC_THREADS = 8  # files of a new generation synced at once
# zstd's own default: the text tables (diff excerpts, bodies) are 7-10 % smaller than at
# Arrow's default level 1 for about the same write time; higher levels cost several times more
# CPU on every incremental run for a few percent more
PARQUET_ZSTD_LEVEL = 3
CURRENT_MAX = 256  # bytes of `CURRENT` read: a generation name is a dozen
# what a writer leaves behind when it dies: its temp folder and its temp `CURRENT`, each named
# with its pid (a live pid's are a concurrent writer's, and are left alone)
_STALE_RE = re.compile(r"^(?:\.tmp-gen-\d{6,}-|\.CURRENT\.)(\d+)$")

# generation path -> (stat signature, problems): the verdict of this process's last check
_VERDICTS: dict[str, tuple[str, dict[str, str]]] = {}
_VERDICTS_LOCK = threading.Lock()
# (generation path, manifest size, mtime, inode) -> the shared instance, while one is served
_SHARED: weakref.WeakValueDictionary[tuple[str, int, int, int], Generation] = (
    weakref.WeakValueDictionary()
)
_SHARED_LOCK = threading.Lock()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _dir_digest(path: Path) -> tuple[int, str]:
    """Total bytes and a sha256 over (relative name, file sha256) of every file, sorted."""
    h = hashlib.sha256()
    total = 0
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        rel = f.relative_to(path).as_posix()
        total += f.stat().st_size
        h.update(rel.encode() + b"\0" + sha256_file(f).encode() + b"\n")
    return total, h.hexdigest()


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


def _same_files(new: Path, old: Path) -> bool:
    """Whether folder `new` holds exactly the files of `old`, each a hard link to its
    counterpart."""
    try:
        names = sorted(f.relative_to(new) for f in new.rglob("*") if f.is_file())
        if names != sorted(f.relative_to(old) for f in old.rglob("*") if f.is_file()):
            return False
        return all(os.path.samefile(new / n, old / n) for n in names)
    except OSError:
        return False


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_COPY_COLUMNS = b"gitstrata.columns"  # a mapped copy's metadata: the Parquet file's columns


def _file_columns(copy: pa.Table) -> list[str]:
    """The columns of the Parquet file a mapped copy was made from (the copy may hold fewer)."""
    meta = copy.schema.metadata or {}
    try:
        names = json.loads(meta[_COPY_COLUMNS])
    except (KeyError, ValueError):
        return list(copy.schema.names)  # a copy of every column, made before the metadata
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return list(copy.schema.names)
    return names


class _KeptColumns:
    """The columns of one Parquet file read so far, while the file has this size, mtime and
    inode; `names`: the file's columns, once read."""

    def __init__(self, stamp: tuple[int, int, int]) -> None:
        self.stamp = stamp
        self.names: list[str] | None = None
        self.columns: dict[str, tuple[Any, Any]] = {}  # name -> (pa.Field, pa.ChunkedArray)
        self.tried = False  # the mapped copy was looked for


class Generation:
    """A published, read-only generation folder.

    A served generation is `share()`d: opening its folder again in the same process (the memory
    book's staleness check, the memory documents) returns the same instance while it lives, and
    its Parquet columns are read once per process whoever asks for them (a request of a one-shot
    process reads `commits.message` or `symbols.code` from three places). Any other instance
    reads its files on every call, so the indexer holds no more than it asks for."""

    def __init__(self, path: Path, manifest: Manifest) -> None:
        self.path = path
        self.manifest = manifest
        self.name = path.name
        self._key: tuple[str, int, int, int] | None = None
        self._columns: dict[str, _KeptColumns] | None = None  # artifact -> its columns read
        self._columns_lock = threading.Lock()
        self._derived: dict[str, Any] = {}

    def share(self) -> Generation:
        """Keep the columns read from now on, and hand this instance to later `open`s of the
        same folder (with the same manifest file) in this process."""
        if self._columns is None:
            self._columns = {}
        if self._key is not None:
            with _SHARED_LOCK:
                _SHARED[self._key] = self
        return self

    def derived(self, key: str, build: Callable[[], _T]) -> _T:
        """A value built from this generation's files alone (its query embedder), once per
        instance: search and the memory book's recall share one."""
        if key not in self._derived:
            got = build()
            with self._columns_lock:
                self._derived.setdefault(key, got)
        return self._derived[key]  # type: ignore[no-any-return]

    @classmethod
    def open(cls, path: Path) -> Generation:
        mpath = path / "manifest.json"
        try:
            st = mpath.stat()
        except FileNotFoundError:
            raise IndexCorrupt(f"{mpath}: missing manifest", hint=f"run `{REBUILD}`") from None
        except OSError:
            st = None
        key = (str(path), st.st_size, st.st_mtime_ns, st.st_ino) if st is not None else None
        if key is not None:
            with _SHARED_LOCK:
                shared = _SHARED.get(key)
            if shared is not None:
                return shared
        try:
            raw = json.loads(mpath.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise IndexCorrupt(
                f"{mpath}: unreadable manifest ({exc})", hint=f"run `{REBUILD}`"
            ) from None
        from .schemas import FORMAT_VERSION

        version = raw.get("format_version") if isinstance(raw, dict) else None
        if version != FORMAT_VERSION:
            raise IndexCorrupt(
                f"{mpath}: index format {version!r}, this gitstrata reads format {FORMAT_VERSION}",
                hint=f"run `{REBUILD}`",
            )
        try:
            manifest = Manifest.model_validate(raw)
        except ValueError as exc:
            raise IndexCorrupt(
                f"{mpath}: invalid manifest ({exc})", hint=f"run `{REBUILD}`"
            ) from None
        gen = cls(path, manifest)
        gen._key = key
        return gen

    def has(self, name: str) -> bool:
        return self.manifest.output(name) is not None

    def info(self, name: str) -> OutputInfo:
        found = self.manifest.output(name)
        if found is None:
            raise IndexCorrupt(
                f"{self.path.name}: this index has no {name!r} artifact", hint=f"run `{REBUILD}`"
            )
        return found[1]

    def file(self, name: str, *, check: str = "size") -> Path:
        """The path of artifact `name`, checked by `size` (cheap, default) or `sha256`."""
        info = self.info(name)
        path = self.path / info.file
        if not path.exists():
            raise IndexCorrupt(f"{path}: missing artifact file", hint=f"run `{REBUILD}`")
        if info.format == "dir":
            if check == "sha256" and _dir_digest(path)[1] != info.sha256:
                raise IndexCorrupt(f"{path}: checksum mismatch", hint=f"run `{REBUILD}`")
            return path
        if path.stat().st_size != info.bytes:
            raise IndexCorrupt(f"{path}: size differs from the manifest", hint=f"run `{REBUILD}`")
        if check == "sha256" and sha256_file(path) != info.sha256:
            raise IndexCorrupt(f"{path}: checksum mismatch", hint=f"run `{REBUILD}`")
        return path

    def table(
        self, name: str, *, check: str = "size", columns: list[str] | None = None
    ) -> pa.Table:
        """Read a Parquet artifact, or memory-map an Arrow IPC one (zero-copy)."""
        import pyarrow as pa
        import pyarrow.ipc as ipc

        from .schemas import artifact, sized_like

        path = self.file(name, check=check)
        spec = artifact(name)
        try:
            if spec.format == "parquet" and self._columns is not None:
                table = self._kept_columns(name, path, columns)
            elif spec.format == "parquet":
                import pyarrow.parquet as pq

                # one file's reader: `read_table` imports pyarrow.dataset, tens of ms in a
                # one-shot process; it is kept for a column the file lacks, which it reports
                with pq.ParquetFile(path) as pf:
                    names = pf.schema_arrow.names
                    if columns is not None and not set(columns) <= set(names):
                        table = pq.read_table(path, columns=columns)
                    else:
                        table = pf.read(columns=columns)
            elif spec.format == "arrow":
                table = ipc.open_file(pa.memory_map(str(path), "r")).read_all()
                if columns is not None:
                    table = table.select(columns)
            else:
                raise IndexCorrupt(f"{name}: a folder artifact, not a table")
        except (OSError, pa.ArrowInvalid) as exc:
            raise IndexCorrupt(f"{path}: unreadable ({exc})", hint=f"run `{REBUILD}`") from None
        expected = sized_like(spec.schema, table.schema) if spec.schema is not None else None
        if expected is not None and columns is None and not table.schema.equals(expected):
            # Parquet stores second timestamps as milliseconds; anything else is a real mismatch
            if table.schema.names != expected.names:
                raise IndexCorrupt(
                    f"{path}: schema differs from this version's", hint=f"run `{REBUILD}`"
                )
            try:
                table = table.cast(expected)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                raise IndexCorrupt(
                    f"{path}: schema differs from this version's", hint=f"run `{REBUILD}`"
                ) from None
        return table

    def _kept_columns(self, name: str, path: Path, columns: list[str] | None) -> pa.Table:
        """`columns` of Parquet artifact `name` (every column when None), each read once while
        the file is the same (size, mtime and inode): from its mapped copy (`mapped_table`),
        else decoded from the file. The copy holds the columns asked of it so far: the first
        reader's, then a column read from the file is added to it (`_write_copy`), so the
        copies of a served generation grow to what serving reads, not to the whole tables
        (`commits`' diff excerpts, for one, are never served)."""
        import pyarrow as pa

        assert self._columns is not None
        st = path.stat()
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
        with self._columns_lock:
            kept = self._columns.get(name)
            if kept is None or kept.stamp != stamp:
                kept = self._columns[name] = _KeptColumns(stamp)
        if kept.names is None and not kept.tried:
            kept.tried = True
            whole = self.mapped_table(name)
            if whole is None and self._write_copy(name, path, columns):
                whole = self.mapped_table(name)  # its pages are the file's, not this process's
            if whole is not None:
                with self._columns_lock:
                    kept.names = _file_columns(whole)
                    for field, column in zip(whole.schema, whole.columns, strict=True):
                        kept.columns.setdefault(field.name, (field, column))
        want = columns if columns is not None else kept.names
        if want is None or any(c not in kept.columns for c in want):
            import pyarrow.parquet as pq

            with pq.ParquetFile(path) as pf:
                names = pf.schema_arrow.names
                if columns is not None and not set(columns) <= set(names):
                    return pq.read_table(path, columns=columns)  # it names the missing column
                want = columns if columns is not None else names
                read = pf.read(columns=[c for c in want if c not in kept.columns])
            with self._columns_lock:
                kept.names = names
                for field, column in zip(read.schema, read.columns, strict=True):
                    kept.columns.setdefault(field.name, (field, column))
            self._write_copy(name, path, [c for c in names if c in kept.columns], kept)
        pairs = [kept.columns[c] for c in want]
        return pa.Table.from_arrays([c for _, c in pairs], schema=pa.schema([f for f, _ in pairs]))

    def _mapped_path(self, name: str) -> Path | None:
        """Where the mapped copy of artifact `name` lives; None for a table that has none (an
        Arrow or folder artifact) or when copies are off (`GITSTRATA_MAPPED_COPIES=off`)."""
        if _copies_off():
            return None
        info = self.info(name)
        if info.format != "parquet" or not info.sha256:
            return None
        return self.path / MAPPED / f"{name}-{info.sha256[:16]}.arrow"

    def kept(self, name: str) -> pa.Table | None:
        """Table `name` a serving process kept beside this generation (`keep`), memory-mapped;
        None when there is none or it is unreadable (a cache: whatever is wrong with it, the
        reader makes what it holds again)."""
        if _copies_off():
            return None
        return _read_ipc(self.path / MAPPED / f"{name}.arrow")

    def keep(self, name: str, table: pa.Table) -> bool:
        """Keep `table` beside this generation as `name` (Arrow IPC in `mapped/`, 0600,
        replaced whole): what serving made from it and a later process may read instead of
        making it again. False when copies are off or the folder cannot be written."""
        if _copies_off():
            return False
        target = self.path / MAPPED / f"{name}.arrow"
        return _writable_folder(target.parent) and _write_ipc(target, table)

    def mapped_bytes(self) -> int:
        """Bytes of the mapped copies made so far (a cache beside the artifacts)."""
        try:
            entries = list(os.scandir(self.path / MAPPED))
        except OSError:
            return 0
        total = 0
        for e in entries:
            try:
                if e.is_file() and not e.name.startswith("."):
                    total += e.stat().st_size
            except OSError:
                continue
        return total

    def mapped_table(self, name: str) -> pa.Table | None:
        """The whole of Parquet artifact `name` from its mapped copy (uncompressed Arrow IPC in
        the generation's `mapped/` folder, named after the file's checksum), memory-mapped: no
        decoding, and only the pages a request reads are loaded. None when there is no sound
        copy (not made yet, another row count, unreadable)."""
        target = self._mapped_path(name)
        if target is None:
            return None
        table = _read_ipc(target)
        return table if table is not None and table.num_rows == self.info(name).rows else None

    def _write_copy(
        self,
        name: str,
        path: Path,
        columns: list[str] | None,
        kept: _KeptColumns | None = None,
    ) -> bool:
        """Write the mapped copy of Parquet artifact `name` with `columns` (every column when
        None): taken from `kept` (this process's columns, mapped or decoded) where it has them,
        else decoded from the file; the copy names the file's columns in its metadata. False
        when copies are off or the folder cannot be written (a read-only store: the columns
        asked for are then read from Parquet, not the whole table), or the write failed."""
        target = self._mapped_path(name)
        if target is None or not _writable_folder(target.parent):
            return False
        import pyarrow as pa

        if kept is not None and columns is not None and all(c in kept.columns for c in columns):
            assert kept.names is not None
            names = kept.names
            pairs = [kept.columns[c] for c in columns]
            table = pa.Table.from_arrays(
                [c for _, c in pairs], schema=pa.schema([f for f, _ in pairs])
            )
        else:
            import pyarrow.parquet as pq

            with pq.ParquetFile(path) as pf:
                names = pf.schema_arrow.names
                table = pf.read(columns=columns)
        meta = {_COPY_COLUMNS: json.dumps(names)}
        return _write_ipc(target, table.replace_schema_metadata(meta))

    def verify(self) -> list[str]:
        """Every problem found checking all outputs' sha256 (empty when sound)."""
        return list(self._hash_check().values())

    def _hash_check(self) -> dict[str, str]:
        """artifact name -> what is wrong with it, for every output failing its sha256."""
        problems: dict[str, str] = {}
        for rec in self.manifest.stages.values():
            for name in rec.outputs:
                try:
                    self.file(name, check="sha256")
                except IndexCorrupt as exc:
                    problems[name] = str(exc)
                except OSError as exc:  # a folder where a file belongs, unreadable permissions
                    problems[name] = f"{self.path / rec.outputs[name].file}: {exc.strerror}"
        return problems

    def stat_signature(self) -> str:
        """A digest of (name, type, size, mtime, inode) of every file the outputs cover: it
        changes whenever one of them is rewritten, truncated, replaced or removed."""
        h = hashlib.sha256()
        for _, rec in sorted(self.manifest.stages.items()):
            for name in sorted(rec.outputs):
                top = str(self.path / rec.outputs[name].file)
                h.update(name.encode() + b"\0")
                try:
                    folder = stat.S_ISDIR(os.stat(top).st_mode)
                except OSError:
                    folder = False
                # a folder's entries (not itself), sorted by their relative path's parts
                files = _tree(top) if folder else [((), top)]
                for parts, f in files:
                    try:
                        st = os.lstat(f)
                    except OSError:
                        h.update(b"missing\n")
                        continue
                    rel = "/".join(parts)
                    h.update(
                        f"{rel}|{stat.S_IFMT(st.st_mode)}|{st.st_size}|{st.st_mtime_ns}|"
                        f"{st.st_ino}\n".encode()
                    )
        return h.hexdigest()

    def problems(self) -> dict[str, str]:
        """artifact name -> what is wrong, checked by sha256 once per change of the files (the
        verdict is kept in this process and, when sound, in `verified.json`)."""
        sig = self.stat_signature()
        key = str(self.path)
        with _VERDICTS_LOCK:
            cached = _VERDICTS.get(key)
        if cached is not None and cached[0] == sig:
            return dict(cached[1])
        if _read_verified(self.path) == sig:
            found: dict[str, str] = {}
        else:
            found = self._hash_check()
            if not found:
                _write_verified(self.path, sig)
        with _VERDICTS_LOCK:
            _VERDICTS[key] = (sig, found)
        return dict(found)

    def check(self) -> None:
        """Raise `IndexCorrupt` naming this generation and its first damaged artifact."""
        found = self.problems()
        if found:
            more = f" (and {len(found) - 1} more damaged)" if len(found) > 1 else ""
            first = next(iter(found.values()))
            raise IndexCorrupt(f"generation {self.name} is damaged: {first}{more}", hint=REPAIR)


def _tree(top: str) -> list[tuple[tuple[str, ...], str]]:
    """Every entry under folder `top` as (parts of its relative path, path), sorted by parts:
    what `sorted(Path(top).rglob("*"))` lists (links to folders are not followed), without a
    `Path` per entry (a one-shot process checks its generation's folders on each open)."""
    out: list[tuple[tuple[str, ...], str]] = []

    def walk(folder: str, parts: tuple[str, ...]) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for e in entries:
            here = (*parts, e.name)
            out.append((here, e.path))
            try:
                deeper = e.is_dir() and not e.is_symlink()
            except OSError:
                deeper = False
            if deeper:
                walk(e.path, here)

    walk(top, ())
    out.sort()
    return out


def _read_verified(folder: Path) -> str | None:
    try:
        raw = json.loads((folder / VERIFIED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    sig = raw.get("stat_signature") if isinstance(raw, dict) else None
    return sig if isinstance(sig, str) else None


def _write_verified(folder: Path, sig: str) -> None:
    """Best effort: a read-only store (a published CI artifact) is checked again next time."""
    tmp = folder / f".{VERIFIED}.{os.getpid()}.{threading.get_ident()}"
    try:
        write_private(tmp, (json.dumps({"stat_signature": sig}) + "\n").encode())
        os.replace(tmp, folder / VERIFIED)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


class GenerationWriter:
    """Builds one generation in a hidden temp folder; `publish` makes it live atomically."""

    def __init__(self, store: Store, name: str) -> None:
        self.store = store
        self.name = name
        self.tmp = store.root / f".tmp-{name}-{os.getpid()}"
        if self.tmp.exists():
            shutil.rmtree(self.tmp)
        private_dir(self.tmp)
        # hard links to a published generation's files: their data is already on disk
        self._linked: set[Path] = set()

    def write_table(self, name: str, table: pa.Table) -> OutputInfo:
        import pyarrow as pa
        import pyarrow.ipc as ipc
        import pyarrow.parquet as pq

        from .schemas import artifact, sized_like

        spec = artifact(name)
        if spec.schema is not None:
            table = table.select(spec.schema.names)
            table = table.cast(sized_like(spec.schema, table.schema))
        path = self.tmp / spec.file
        if spec.format == "parquet":
            pq.write_table(
                table,
                path,
                compression="zstd",
                compression_level=PARQUET_ZSTD_LEVEL,
                use_dictionary=_dictionary_columns(table.schema),
                use_byte_stream_split=_float_leaves(table.schema),
                write_statistics=_statistics_leaves(table.schema),
            )
        elif spec.format == "arrow":
            with pa.OSFile(str(path), "wb") as sink, ipc.new_file(sink, table.schema) as writer:
                writer.write_table(table)
        else:
            raise ValueError(f"{name} is a folder artifact; use output_dir()")
        return OutputInfo(
            file=spec.file,
            format=spec.format,
            rows=table.num_rows,
            bytes=path.stat().st_size,
            sha256=sha256_file(path),
        )

    def output_dir(self, name: str) -> Path:
        from .schemas import artifact

        spec = artifact(name)
        path = self.tmp / spec.file
        path.mkdir(parents=True, exist_ok=True)
        return path

    def finish_dir(self, name: str, previous: Generation | None = None) -> OutputInfo:
        """The record of a folder artifact a stage wrote. When every file in it is a hard link
        to the same file of `previous`'s folder (a stage that kept its state, e.g. an embedder
        not refitted), the previous record holds: those bytes were hashed when they were
        written, and `previous` was checked when it was opened."""
        from .schemas import artifact

        spec = artifact(name)
        path = self.tmp / spec.file
        if previous is not None and previous.has(name):
            info = previous.info(name)
            if info.format == "dir" and _same_files(path, previous.path / info.file):
                for f in path.rglob("*"):
                    if f.is_file():
                        self._linked.add(f)
                return info
        total, digest = _dir_digest(path)
        return OutputInfo(file=spec.file, format="dir", rows=None, bytes=total, sha256=digest)

    def carry(self, source: Generation, name: str) -> OutputInfo:
        """Reuse an unchanged artifact of the previous generation: hard links, else copies."""
        info = source.info(name)
        src = source.path / info.file
        dst = self.tmp / info.file
        if info.format == "dir":
            for f in sorted(p for p in src.rglob("*") if p.is_file()):
                target = dst / f.relative_to(src)
                target.parent.mkdir(parents=True, exist_ok=True)
                if _link_or_copy(f, target):
                    self._linked.add(target)
            dst.mkdir(parents=True, exist_ok=True)
        else:
            if _link_or_copy(src, dst):
                self._linked.add(dst)
            self._carry_mapped(source, name)
        return info

    def _carry_mapped(self, source: Generation, name: str) -> None:
        """Hard-link the mapped copy of a carried table, when `source` made one (a cache: it
        is never copied)."""
        copy = source._mapped_path(name)
        if copy is None or not copy.is_file():
            return
        target = self.tmp / MAPPED / copy.name
        try:
            private_dir(target.parent)
            os.link(copy, target)
        except OSError:
            return
        self._linked.add(target)

    def publish(self, manifest: Manifest) -> Generation:
        mpath = self.tmp / "manifest.json"
        mpath.write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
        # whatever wrote them (Arrow, Tantivy, numpy) and whatever the umask: owner only
        tighten_tree(self.tmp)
        # a carried-over hard link needs no data sync, only the directory entry naming it
        folders = [self.tmp]
        files = []
        for f in self.tmp.rglob("*"):
            if f.is_dir():
                folders.append(f)
            elif f.is_file() and f not in self._linked:
                files.append(f)
        # concurrent syncs share the file system's journal commits (several times faster than
        # one after the other on ext4); every one has returned before the rename below
        from concurrent.futures import ThreadPoolExecutor  # a writer's: readers never sync

        with ThreadPoolExecutor(max_workers=SYNC_THREADS) as pool:
            list(pool.map(_fsync_file, files))
            list(pool.map(_fsync_dir, folders))
        final = self.store.root / self.name
        os.rename(self.tmp, final)
        _fsync_dir(self.store.root)
        gen = Generation(final, manifest)
        # every file was hashed as it was written (or carried from a checked generation), and a
        # rename keeps sizes, mtimes and inodes: the first reader need not hash them again
        _write_verified(final, gen.stat_signature())
        self.store._set_current(self.name)
        return gen

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def _dictionary_columns(schema: pa.Schema) -> list[str]:
    """Columns worth dictionary-encoding: not floating-point ones (embedding vectors repeat no
    value, and trying a dictionary on them costs more than writing them)."""
    import pyarrow as pa

    def floats(t: pa.DataType) -> bool:
        while pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
            t = t.value_type
        return pa.types.is_floating(t)

    return [f.name for f in schema if not floats(f.type)]


def _leaf(field: pa.Field) -> tuple[pa.DataType, str]:
    """The element type under a column's lists, and its Parquet path (`name.list.element`)."""
    import pyarrow as pa

    t, path = field.type, field.name
    while pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        t, path = t.value_type, f"{path}.list.element"
    return t, path


def _float_leaves(schema: pa.Schema) -> list[str]:
    """Parquet paths of the floating-point elements of list columns (embedding vectors):
    written byte-stream-split, the exponent bytes of all values side by side, which zstd then
    compresses (a vector matrix shrinks by ~8 % and writes faster than as plain values). Scalar
    float columns (weights, shares) repeat few values and compress better plain."""
    import pyarrow as pa

    out = []
    for f in schema:
        t, path = _leaf(f)
        if path != f.name and pa.types.is_floating(t):
            out.append(path)
    return out


def _statistics_leaves(schema: pa.Schema) -> bool | list[str]:
    """Parquet paths whose min / max statistics are written: all but the floating-point elements
    of list columns. No reader filters on a vector's components, and Parquet computing the
    range of a float16 matrix (element by element, widened) was a third of writing
    `vectors_f32`."""
    import pyarrow as pa

    floats = set(_float_leaves(schema))
    if not floats:
        return True
    out = []
    for f in schema:
        t, path = _leaf(f)
        if pa.types.is_nested(t):
            return True  # a struct's leaves: statistics everywhere rather than paths guessed
        if path not in floats:
            out.append(path)
    return out


def _link_or_copy(src: Path, dst: Path) -> bool:
    """True when `dst` is a hard link, False when it had to be copied."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
        return False
    return True


class Store:
    """A store folder. Creating the object touches nothing on disk; `ensure()` does."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        # generations `salvage` found damaged: collected once a sound one is live
        self.damaged: set[str] = set()

    def ensure(self) -> None:
        if self.root.exists() and not self.root.is_dir():
            raise InputError(
                f"{self.root}: not a folder", hint="pass --out a folder (it is created if missing)"
            )
        # a folder named with --out is tightened once it holds an index (not before: it may be
        # a folder of the user's that gitstrata is refused in)
        ours = self.root.name == ".strata" or (self.root / "CURRENT").exists()
        try:
            private_dir(self.root, existing=ours)
        except OSError as exc:
            raise InputError(
                f"{self.root}: cannot create the index folder ({exc.strerror})",
                hint="pass --out a folder you can write to",
            ) from None
        ignore = self.root / ".gitignore"
        try:
            current: str | None = ignore.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = None
        except (OSError, UnicodeDecodeError):
            return  # not ours to fix
        if current is None or current in _OLD_GITIGNORES:
            write_private(ignore, GITIGNORE.encode("utf-8"))

    def lock(self, *, timeout: float | None = None, on_wait=None) -> FileLock:
        self.ensure()
        return FileLock(self.root / "index.lock", timeout=timeout, on_wait=on_wait)

    def current_name(self) -> str | None:
        path = self.root / "CURRENT"
        try:
            st = path.stat()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise IndexCorrupt(f"{path}: unreadable ({exc.strerror})", hint=REPAIR) from None
        if not stat.S_ISREG(st.st_mode):
            # a folder or a FIFO there would fail, or block, the read
            raise IndexCorrupt(f"{path}: not a file", hint=REPAIR)
        try:
            with open(path, "rb") as fh:
                raw = fh.read(CURRENT_MAX)
        except OSError as exc:
            raise IndexCorrupt(f"{path}: unreadable ({exc.strerror})", hint=REPAIR) from None
        try:
            name = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise IndexCorrupt(f"{path}: not UTF-8 text", hint=REPAIR) from None
        if not GEN_RE.match(name):
            raise IndexCorrupt(f"{path}: names no generation", hint=REPAIR)
        return name

    def live(self) -> Generation | None:
        """The live generation, checked against its manifest (see `Generation.problems`)."""
        name = self.current_name()
        if name is None:
            return None
        path = self.root / name
        if not path.is_dir():
            raise IndexCorrupt(f"{path}: the live generation's folder is missing", hint=REPAIR)
        gen = Generation.open(path)
        gen.check()
        return gen

    def salvage(self) -> Generation | None:
        """What an indexer may reuse of a damaged live generation: the generation without the
        stages whose outputs are damaged (so those stages run again), or None when `CURRENT`, the
        folder or the manifest is unusable (everything runs again)."""
        try:
            name = self.current_name()
            if name is None or not (self.root / name).is_dir():
                return None
            gen = Generation.open(self.root / name)
        except IndexCorrupt:
            return None
        found = gen.problems()
        if not found:
            return gen
        self.damaged.add(gen.name)
        stages = {
            stage: rec
            for stage, rec in gen.manifest.stages.items()
            if not any(out in found for out in rec.outputs)
        }
        return Generation(gen.path, gen.manifest.model_copy(update={"stages": stages}))

    def require_live(self) -> Generation:
        gen = self.live()
        if gen is None:
            raise IndexMissing(f"{self.root}: no index has been built here yet")
        return gen

    def generations(self) -> list[str]:
        if not self.root.is_dir():
            return []
        names = [p.name for p in self.root.iterdir() if p.is_dir() and GEN_RE.match(p.name)]
        return sorted(names, key=lambda n: int(n[4:]))

    def begin(self) -> GenerationWriter:
        self.ensure()
        self.sweep()
        existing = self.generations()
        number = int(existing[-1][4:]) + 1 if existing else 1
        return GenerationWriter(self, f"gen-{number:06d}")

    def _set_current(self, name: str) -> None:
        tmp = self.root / f".CURRENT.{os.getpid()}"
        write_private(tmp, f"{name}\n".encode(), sync=True)
        current = self.root / "CURRENT"
        if current.is_dir() and not current.is_symlink():
            shutil.rmtree(current)  # a damaged store: nothing can be renamed over a folder
        os.replace(tmp, current)
        _fsync_dir(self.root)

    def sweep(self) -> list[str]:
        """Remove `.tmp-gen-*` folders and `.CURRENT.<pid>` files whose writer is gone (a crash);
        a running writer's own are kept."""
        removed: list[str] = []
        try:
            entries = list(self.root.iterdir())
        except OSError:
            return removed
        for entry in entries:
            m = _STALE_RE.match(entry.name)
            if m is None:
                continue
            pid = int(m.group(1))
            if _pid_alive(pid):
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                try:
                    entry.unlink()
                except OSError:
                    continue
            removed.append(entry.name)
        return removed

    def collect(self, keep: int = 2) -> list[str]:
        """Delete generations older than the live one and the `keep - 1` before it."""
        live = self.current_name()
        names = self.generations()
        if live not in names:
            return []
        upto = names.index(live)
        keep_names = set(names[max(0, upto - keep + 1) : upto + 1])
        removed = []
        for name in names[:upto]:
            if name not in keep_names or name in self.damaged:
                shutil.rmtree(self.root / name, ignore_errors=True)
                removed.append(name)
        self.sweep()
        return removed


def _read_ipc(path: Path) -> pa.Table | None:
    """The Arrow IPC file at `path`, memory-mapped; None when it is missing or unsound."""
    if not path.is_file():
        return None
    import pyarrow as pa
    import pyarrow.ipc as ipc

    try:
        table = ipc.open_file(pa.memory_map(str(path), "r")).read_all()
        table.validate()  # buffers and offsets within bounds (not a scan of the values)
    except (OSError, pa.ArrowException):  # a file cut short, overwritten, of another format
        return None
    return table


def _writable_folder(folder: Path) -> bool:
    """`folder` made (0700) if missing, and writable by this process."""
    try:
        private_dir(folder)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def _write_ipc(path: Path, table: pa.Table) -> bool:
    """Replace `path` with `table` as Arrow IPC (0600, through a temp file); False on failure."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        with pa.OSFile(str(tmp), "wb") as sink:
            os.chmod(tmp, FILE_MODE)
            with ipc.new_file(sink, table.schema) as writer:
                writer.write_table(table)
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        return False
    return True


def _copies_off() -> bool:
    return os.environ.get("GITSTRATA_MAPPED_COPIES", "").lower() in ("off", "0", "false", "no")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
