"""Index stores in object storage: a generation published to a URI, and served from a local cache.

A remote location (`s3://bucket/prefix`, `gs://...`, `file:///srv/index`, anything pyarrow's
filesystems open) holds the same layout as a local store folder: `CURRENT` and `gen-NNNNNN/`
folders with their `manifest.json`. Invariants:

- Publishing uploads every artifact of a generation, then its manifest, then `CURRENT`: a reader
  never sees a generation whose upload did not finish (an interrupted upload leaves a folder
  that `CURRENT` does not name).
- Reading downloads the generation named by `CURRENT` once into a local cache store and serves
  it from there, memory-mapped like any local index. Cached files are content-addressed by the
  manifest's checksums (`objects/<sha256>`, shared by generations and locations) and verified
  each time a location is opened: a damaged cached file is fetched again, and a remote file that
  does not match its manifest is refused.
- Credentials never reach the cache key, a message or a file: the location is shown and keyed
  without its user info and without query parameters that carry keys.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .errors import IndexCorrupt, IndexMissing, InputError
from .generations import GEN_RE, Generation, Store, _dir_digest, _link_or_copy, sha256_file
from .location import is_uri
from .manifest import Manifest, OutputInfo
from .schemas import FORMAT_VERSION

_SECRET_PARAMS = frozenset({"access_key", "secret_key", "session_token", "credential"})
OBJECTS = "objects"
READ_BLOCK = 1 << 20


def display_uri(uri: str) -> str:
    """`uri` without user info and without query parameters that carry credentials."""
    parts = urlsplit(uri)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k not in _SECRET_PARAMS])
    return urlunsplit((parts.scheme, host, parts.path, query, ""))


def default_cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gitstrata" / "remote"


class RemoteStore:
    """One remote location and its local cache store (`local`, an ordinary store folder)."""

    def __init__(self, uri: str, cache_root: Path | None = None) -> None:
        import pyarrow as pa
        import pyarrow.fs as pafs

        self.uri = uri
        self.shown = display_uri(uri)
        try:
            self.fs, base = pafs.FileSystem.from_uri(uri)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError, ValueError) as exc:
            raise InputError(
                f"{self.shown}: not a location this pyarrow can open ({_first_line(exc)})",
                hint="use a folder, file://, s3:// or gs:// (the filesystems your pyarrow has)",
            ) from None
        self.base = base.rstrip("/")
        self.cache_root = Path(cache_root) if cache_root is not None else default_cache_root()
        key = hashlib.sha256(self.shown.encode()).hexdigest()[:16]
        self.local = Store(self.cache_root / key)
        self.objects = self.cache_root / OBJECTS

    # ------------------------------------------------------------------ remote reads

    def _path(self, *parts: str) -> str:
        return "/".join([self.base, *parts]) if self.base else "/".join(parts)

    def _read(self, path: str) -> bytes | None:
        import pyarrow.fs as pafs

        try:
            info = self.fs.get_file_info(path)
        except OSError as exc:
            raise InputError(f"{self.shown}: cannot reach ({_first_line(exc)})") from None
        if info.type != pafs.FileType.File:
            return None
        try:
            with self.fs.open_input_stream(path) as fh:
                return fh.read()
        except OSError as exc:
            raise InputError(f"{self.shown}: cannot read {path} ({_first_line(exc)})") from None

    def remote_current(self) -> str | None:
        """The remote live generation's name, None when nothing was published there."""
        raw = self._read(self._path("CURRENT"))
        if raw is None:
            return None
        try:
            name = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            name = ""
        if not GEN_RE.match(name):
            raise IndexCorrupt(
                f"{self.shown}/CURRENT: names no generation",
                hint="publish the index there again (gitstrata index --out LOCATION)",
            )
        return name

    def _remote_manifest(self, name: str) -> tuple[bytes, Manifest]:
        raw = self._read(self._path(name, "manifest.json"))
        where = f"{self.shown}/{name}/manifest.json"
        if raw is None:
            raise IndexCorrupt(f"{where}: missing", hint="publish the index there again")
        try:
            data = json.loads(raw)
            if not isinstance(data, dict) or data.get("format_version") != FORMAT_VERSION:
                version = data.get("format_version") if isinstance(data, dict) else None
                raise IndexCorrupt(
                    f"{where}: index format {version!r}, this gitstrata reads {FORMAT_VERSION}",
                    hint="publish it again with this gitstrata",
                )
            return raw, Manifest.model_validate(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise IndexCorrupt(
                f"{where}: unreadable ({_first_line(exc)})", hint="publish it again"
            ) from None

    # ------------------------------------------------------------------ pull

    def pull(self) -> Generation | None:
        """Make the local cache serve the remote live generation (downloading what the cache
        does not hold intact); None when nothing was published there yet."""
        name = self.remote_current()
        if name is None:
            return None
        raw, manifest = self._remote_manifest(name)
        self.local.ensure()
        with self.local.lock():
            final = self.local.root / name
            if final.is_dir():
                try:
                    gen = Generation.open(final)
                    if (final / "manifest.json").read_bytes() == raw and not gen.verify():
                        if self.local.current_name() != name:
                            self.local._set_current(name)
                        return gen
                except IndexCorrupt:
                    pass
                shutil.rmtree(final, ignore_errors=True)
            tmp = self.local.root / f".tmp-{name}-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
            try:
                for rec in manifest.stages.values():
                    for info in rec.outputs.values():
                        self._fetch(name, info, tmp)
                (tmp / "manifest.json").write_bytes(raw)
                os.rename(tmp, final)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            self.local._set_current(name)
            self.local.collect(keep=2)
            return Generation(final, manifest)

    def _fetch(self, gen: str, info: OutputInfo, into: Path) -> None:
        self.objects.mkdir(parents=True, exist_ok=True)
        if info.format == "dir":
            obj = self.objects / f"dir-{info.sha256}"
            if not (obj.is_dir() and _dir_digest(obj)[1] == info.sha256):
                self._download_dir(gen, info, obj)
            for f in sorted(p for p in obj.rglob("*") if p.is_file()):
                target = into / info.file / f.relative_to(obj)
                target.parent.mkdir(parents=True, exist_ok=True)
                _link_or_copy(f, target)
            (into / info.file).mkdir(parents=True, exist_ok=True)
            return
        obj = self.objects / info.sha256
        if not (obj.is_file() and sha256_file(obj) == info.sha256):
            part = obj.with_name(f".{obj.name}.{os.getpid()}")
            self._download(self._path(gen, info.file), part)
            if sha256_file(part) != info.sha256:
                part.unlink(missing_ok=True)
                raise IndexCorrupt(
                    f"{self.shown}/{gen}/{info.file}: does not match its manifest's checksum",
                    hint="publish the index there again",
                )
            os.replace(part, obj)
        target = into / info.file
        target.parent.mkdir(parents=True, exist_ok=True)
        _link_or_copy(obj, target)

    def _download_dir(self, gen: str, info: OutputInfo, obj: Path) -> None:
        import pyarrow.fs as pafs

        root = self._path(gen, info.file)
        try:
            listing = self.fs.get_file_info(pafs.FileSelector(root, recursive=True))
        except (OSError, FileNotFoundError) as exc:
            raise IndexCorrupt(
                f"{self.shown}/{gen}/{info.file}: missing ({_first_line(exc)})",
                hint="publish the index there again",
            ) from None
        part = obj.with_name(f".{obj.name}.{os.getpid()}")
        shutil.rmtree(part, ignore_errors=True)
        part.mkdir(parents=True)
        for entry in listing:
            if entry.type != pafs.FileType.File:
                continue
            rel = entry.path[len(root) :].lstrip("/")
            if not rel or ".." in rel.split("/"):
                continue
            self._download(entry.path, part / rel)
        if _dir_digest(part)[1] != info.sha256:
            shutil.rmtree(part, ignore_errors=True)
            raise IndexCorrupt(
                f"{self.shown}/{gen}/{info.file}: does not match its manifest's checksum",
                hint="publish the index there again",
            )
        shutil.rmtree(obj, ignore_errors=True)
        os.rename(part, obj)

    def _download(self, src: str, dst: Path) -> None:
        dst.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self.fs.open_input_stream(src) as fh, open(dst, "wb") as out:
                while chunk := fh.read(READ_BLOCK):
                    out.write(chunk)
        except (OSError, FileNotFoundError) as exc:
            raise IndexCorrupt(
                f"{self.shown}: cannot download {src.rsplit('/', 1)[-1]} ({_first_line(exc)})",
                hint="publish the index there again",
            ) from None

    # ------------------------------------------------------------------ push

    def push(self, gen: Generation, *, keep: int = 2) -> str:
        """Upload `gen` as the remote's live generation: artifacts, manifest, then `CURRENT`.
        Returns the remote generation name. One writer per location at a time."""
        name = gen.name
        current = self.remote_current()
        if current is not None and int(current[4:]) >= int(name[4:]):
            if current == name and self._same_manifest(name, gen):
                return name  # already published
            name = f"gen-{int(current[4:]) + 1:06d}"
        manifest = gen.manifest.model_copy(update={"generation": name})
        for rec in manifest.stages.values():
            for info in rec.outputs.values():
                src = gen.path / info.file
                if info.format == "dir":
                    for f in sorted(p for p in src.rglob("*") if p.is_file()):
                        rel = f.relative_to(gen.path).as_posix()
                        self._upload(f, self._path(name, rel))
                else:
                    self._upload(src, self._path(name, info.file))
        body = (manifest.model_dump_json(indent=2) + "\n").encode()
        self._write(self._path(name, "manifest.json"), body)
        self._write(self._path("CURRENT"), (name + "\n").encode(), atomic=True)
        self._collect(name, keep)
        return name

    def _same_manifest(self, name: str, gen: Generation) -> bool:
        try:
            _, remote = self._remote_manifest(name)
        except IndexCorrupt:
            return False
        return remote.stages == gen.manifest.stages and remote.repo_head == gen.manifest.repo_head

    def _upload(self, src: Path, dst: str) -> None:
        parent = dst.rsplit("/", 1)[0]
        try:
            self.fs.create_dir(parent, recursive=True)
            with open(src, "rb") as fh, self.fs.open_output_stream(dst) as out:
                while chunk := fh.read(READ_BLOCK):
                    out.write(chunk)
        except OSError as exc:
            raise InputError(f"{self.shown}: cannot upload ({_first_line(exc)})") from None

    def _write(self, dst: str, data: bytes, *, atomic: bool = False) -> None:
        import pyarrow.fs as pafs

        try:
            self.fs.create_dir(dst.rsplit("/", 1)[0], recursive=True)
            if atomic and isinstance(self.fs, pafs.LocalFileSystem):
                # a local filesystem writes in place: a reader could see half the pointer
                tmp = f"{dst}.{os.getpid()}.tmp"
                with self.fs.open_output_stream(tmp) as out:
                    out.write(data)
                self.fs.move(tmp, dst)
                return
            with self.fs.open_output_stream(dst) as out:  # one PUT: atomic in object stores
                out.write(data)
        except OSError as exc:
            raise InputError(f"{self.shown}: cannot write ({_first_line(exc)})") from None

    def _collect(self, live: str, keep: int) -> None:
        import pyarrow.fs as pafs

        try:
            listing = self.fs.get_file_info(pafs.FileSelector(self.base, recursive=False))
        except OSError:
            return
        names = sorted(
            (e.base_name for e in listing if e.type == pafs.FileType.Directory),
            key=lambda n: int(n[4:]) if GEN_RE.match(n) else -1,
        )
        names = [n for n in names if GEN_RE.match(n)]
        if live not in names:
            return
        upto = names.index(live)
        for old in names[: max(0, upto - keep + 1)]:
            try:
                self.fs.delete_dir(self._path(old))
            except OSError:
                pass

    def status(self) -> dict[str, Any]:
        return {"location": self.shown, "cache": str(self.local.root)}


def open_prebuilt(source: str | Path, cache_root: Path | None = None) -> Generation:
    """The live generation of a prebuilt index: a store folder or a remote location."""
    if is_uri(source):
        remote = RemoteStore(str(source), cache_root)
        gen = remote.pull()
        if gen is None:
            raise IndexMissing(f"{remote.shown}: no index has been published there")
        return gen
    folder = Path(source)
    if not folder.is_dir():
        raise InputError(f"{folder}: no such index folder", hint="name a store folder or a URI")
    return Store(folder).require_live()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
