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
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from .errors import IndexCorrupt, IndexMissing
from .lock import FileLock
from .manifest import Manifest, OutputInfo
from .private import private_dir, tighten_tree, write_private
from .schemas import FORMAT_VERSION, artifact, sized_like

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


class Generation:
    """A published, read-only generation folder."""

    def __init__(self, path: Path, manifest: Manifest) -> None:
        self.path = path
        self.manifest = manifest
        self.name = path.name

    @classmethod
    def open(cls, path: Path) -> Generation:
        mpath = path / "manifest.json"
        if not mpath.exists():
            raise IndexCorrupt(f"{mpath}: missing manifest", hint=f"run `{REBUILD}`")
        try:
            raw = json.loads(mpath.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise IndexCorrupt(
                f"{mpath}: unreadable manifest ({exc})", hint=f"run `{REBUILD}`"
            ) from None
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
        return cls(path, manifest)

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
        path = self.file(name, check=check)
        spec = artifact(name)
        try:
            if spec.format == "parquet":
                table = pq.read_table(path, columns=columns)
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

    def verify(self) -> list[str]:
        """Every problem found checking all outputs' sha256 (empty when sound)."""
        problems = []
        for rec in self.manifest.stages.values():
            for name in rec.outputs:
                try:
                    self.file(name, check="sha256")
                except IndexCorrupt as exc:
                    problems.append(str(exc))
        return problems


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
        spec = artifact(name)
        if spec.schema is not None:
            table = table.select(spec.schema.names)
            table = table.cast(sized_like(spec.schema, table.schema))
        path = self.tmp / spec.file
        if spec.format == "parquet":
            pq.write_table(
                table, path, compression="zstd", use_dictionary=_dictionary_columns(table.schema)
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
        spec = artifact(name)
        path = self.tmp / spec.file
        path.mkdir(parents=True, exist_ok=True)
        return path

    def finish_dir(self, name: str) -> OutputInfo:
        spec = artifact(name)
        total, digest = _dir_digest(self.tmp / spec.file)
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
        elif _link_or_copy(src, dst):
            self._linked.add(dst)
        return info

    def publish(self, manifest: Manifest) -> Generation:
        mpath = self.tmp / "manifest.json"
        mpath.write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
        # whatever wrote them (Arrow, Tantivy, numpy) and whatever the umask: owner only
        tighten_tree(self.tmp)
        # a carried-over hard link needs no data sync, only the directory entry naming it
        folders = [self.tmp]
        for f in self.tmp.rglob("*"):
            if f.is_dir():
                folders.append(f)
            elif f.is_file() and f not in self._linked:
                with open(f, "rb") as fh:
                    os.fsync(fh.fileno())
        for folder in folders:
            _fsync_dir(folder)
        final = self.store.root / self.name
        os.rename(self.tmp, final)
        _fsync_dir(self.store.root)
        self.store._set_current(self.name)
        return Generation(final, manifest)

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def _dictionary_columns(schema: pa.Schema) -> list[str]:
    """Columns worth dictionary-encoding: not floating-point ones (embedding vectors repeat no
    value, and trying a dictionary on them costs more than writing them)."""

    def floats(t: pa.DataType) -> bool:
        while pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
            t = t.value_type
        return pa.types.is_floating(t)

    return [f.name for f in schema if not floats(f.type)]


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

    def ensure(self) -> None:
        # a folder named with --out is tightened once it holds an index (not before: it may be
        # a folder of the user's that gitstrata is refused in)
        ours = self.root.name == ".strata" or (self.root / "CURRENT").exists()
        private_dir(self.root, existing=ours)
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
        try:
            name = (self.root / "CURRENT").read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        if not GEN_RE.match(name):
            raise IndexCorrupt(
                f"{self.root / 'CURRENT'}: names no generation", hint=f"run `{REBUILD}`"
            )
        return name

    def live(self) -> Generation | None:
        name = self.current_name()
        if name is None:
            return None
        path = self.root / name
        if not path.is_dir():
            raise IndexCorrupt(
                f"{path}: the live generation's folder is missing", hint=f"run `{REBUILD}`"
            )
        return Generation.open(path)

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
        existing = self.generations()
        number = int(existing[-1][4:]) + 1 if existing else 1
        return GenerationWriter(self, f"gen-{number:06d}")

    def _set_current(self, name: str) -> None:
        tmp = self.root / f".CURRENT.{os.getpid()}"
        write_private(tmp, f"{name}\n".encode(), sync=True)
        os.replace(tmp, self.root / "CURRENT")
        _fsync_dir(self.root)

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
            if name not in keep_names:
                shutil.rmtree(self.root / name, ignore_errors=True)
                removed.append(name)
        for stale in self.root.glob(".tmp-gen-*"):
            pid = stale.name.rsplit("-", 1)[-1]
            if pid.isdigit() and not _pid_alive(int(pid)):
                shutil.rmtree(stale, ignore_errors=True)
        return removed


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
