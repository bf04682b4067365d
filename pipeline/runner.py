"""The runner: decides what is stale, runs it, and publishes one new generation atomically.

Flow of `run_index`: validate the repository and the stage graph, take the index lock, then for
each stage in order compute its fingerprint; a stage whose fingerprint equals the previous
generation's is carried over (hard links), any other runs. Only when every stage succeeded is the
new generation published; any failure removes the temp folder and leaves the live one untouched.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..store.config import Config
from ..store.errors import GitstrataError, IndexCorrupt, StageError
from ..store.generations import Generation, Store, utc_now
from ..store.heap import release_free_heap
from ..store.manifest import CODE_VERSION, Manifest, StageRecord
from ..store.schemas import FORMAT_VERSION, artifact
from .codeversion import load_import_cache, save_import_cache, stage_code_version
from .executor import make_executor
from .gitio import Git
from .graph import chain_weights, dependencies, order_stages
from .progress import Progress
from .stage import Stage, StageContext


@dataclass
class StageReport:
    name: str
    skipped: bool
    seconds: float
    rows: dict[str, int | None] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)


@dataclass
class IndexReport:
    store: Path
    generation: str
    path: Path
    head: str
    up_to_date: bool
    shallow: bool
    seconds: float
    stages: list[StageReport]
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. which prebuilt index it started from
    published: str | None = None  # the remote location the generation was published to

    def stage(self, name: str) -> StageReport | None:
        return next((s for s in self.stages if s.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": str(self.store),
            "generation": self.generation,
            "path": str(self.path),
            "head": self.head,
            "up_to_date": self.up_to_date,
            "shallow": self.shallow,
            "seconds": round(self.seconds, 3),
            "warnings": self.warnings,
            "notes": self.notes,
            "published": self.published,
            "stages": [
                {
                    "name": s.name,
                    "skipped": s.skipped,
                    "seconds": round(s.seconds, 3),
                    "rows": s.rows,
                    "stats": s.stats,
                }
                for s in self.stages
            ],
        }


def fingerprint(
    stage: Stage,
    code_version: str,
    config: Config,
    source_value: str | None,
    inputs: dict[str, str],
    extra: str,
) -> str:
    payload = {
        "stage": stage.name,
        "code": code_version,
        "config": {name: config.section(name).fingerprint_payload() for name in stage.config},
        "source": source_value,
        "inputs": dict(sorted(inputs.items())),
        "extra": extra,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


# the import lists of the stages' modules, so that a run need not parse them all again
IMPORT_CACHE = "imports.json"


def default_store(git: Git) -> Path:
    return git.root / ".strata"


def _tool_version() -> str:
    """The installed gitstrata's version, read from its metadata (the pipeline does not import
    the package's face)."""
    try:
        return metadata.version("gitstrata")
    except metadata.PackageNotFoundError:
        return "unknown"


def run_index(
    repo: str | Path,
    out: str | Path | None = None,
    *,
    rebuild: bool = False,
    jobs: int | None = None,
    executor: str = "local",
    address: str | None = None,
    progress: Progress | None = None,
    stages: Sequence[Stage] | None = None,
    config: Config | None = None,
    lock_timeout: float | None = None,
) -> IndexReport:
    started = time.perf_counter()
    progress = progress or Progress()
    git = Git(repo)
    head = git.require_head()
    tree = git.tree_id(head)
    if stages is None:
        from .registry import default_stages

        stages = default_stages()
    ordered = order_stages(stages)
    store = Store(Path(out) if out is not None else default_store(git))
    config = config or Config.load(store.root)
    warnings: list[str] = []
    shallow = git.is_shallow()
    if shallow:
        warnings.append(
            "shallow clone: history before the shallow boundary is not indexed, and blame "
            "gives the boundary commit every older line (answers say so; fetch the whole "
            "history with `git fetch --unshallow`)"
        )
    if git.is_partial():
        warnings.append(
            "partial clone: git downloads the file versions it lacks while indexing (slow, "
            "and it needs the network); a full clone indexes offline"
        )

    def waiting() -> None:
        progress.message(f"waiting for another gitstrata index on {store.root} to finish ...")

    with store.lock(timeout=lock_timeout, on_wait=waiting):
        try:
            previous = store.live()
        except IndexCorrupt as exc:
            # what is still sound is reused; the stages whose outputs are damaged run again
            previous = store.salvage()
            warnings.append(
                f"previous index damaged, rebuilding what is damaged: {exc}"
                if previous is not None
                else f"previous index unusable, rebuilding: {exc}"
            )
        writer = store.begin()
        load_import_cache(store.root / IMPORT_CACHE)
        try:
            report = _run_stages(
                ordered,
                git,
                head,
                tree,
                config,
                store,
                writer,
                previous,
                rebuild=rebuild,
                jobs=jobs,
                executor_kind=executor,
                address=address,
                progress=progress,
            )
        except BaseException:
            writer.abort()
            raise
        records, reports = report
        save_import_cache(store.root / IMPORT_CACHE)
        all_skipped = all(r.skipped for r in reports)
        if previous is not None and all_skipped and previous.manifest.repo_head == head:
            writer.abort()
            return IndexReport(
                store=store.root,
                generation=previous.name,
                path=previous.path,
                head=head,
                up_to_date=True,
                shallow=shallow,
                seconds=time.perf_counter() - started,
                stages=reports,
                warnings=warnings,
            )
        indexed_range: dict[str, Any] = {"head": head}
        for rec in records.values():
            indexed_range.update(rec.state.get("indexed_range", {}))
        manifest = Manifest(
            format_version=FORMAT_VERSION,
            generation=writer.name,
            created_at=utc_now(),
            tool_version=_tool_version(),
            repo_head=head,
            repo_tree=tree,
            shallow=shallow,
            indexed_range=indexed_range,
            stages=records,
            config=config.model_dump(mode="json"),
            timings={r.name: round(r.seconds, 4) for r in reports},
        )
        try:
            gen = writer.publish(manifest)
        except BaseException:
            writer.abort()
            raise
        store.collect(keep=config.index.keep_generations)
    return IndexReport(
        store=store.root,
        generation=gen.name,
        path=gen.path,
        head=head,
        up_to_date=False,
        shallow=shallow,
        seconds=time.perf_counter() - started,
        stages=reports,
        warnings=warnings,
    )


def _run_stages(
    ordered: list[Stage],
    git: Git,
    head: str,
    tree: str,
    config: Config,
    store: Store,
    writer,
    previous: Generation | None,
    *,
    rebuild: bool,
    jobs: int | None,
    executor_kind: str,
    address: str | None,
    progress: Progress,
) -> tuple[dict[str, StageRecord], list[StageReport]]:
    """Run or carry over every stage. A stage starts once the stages writing its inputs are
    done, up to `_width` stages at once (the heaviest chain of dependents first); fingerprints,
    carry-overs and progress lines are decided here, in the calling thread, and a stage's own
    work (running it, writing its artifacts) runs on a thread of its own."""
    records: dict[str, StageRecord] = {}
    reports: dict[str, StageReport] = {}
    sha_of: dict[str, str] = {}  # artifact -> sha256 in this run
    tables: dict[str, pa.Table] = {}  # artifacts written in this run, kept for later stages
    # which stages of this run read each artifact: a table is dropped from `tables` once they
    # are all done (a long history's tables are hundreds of megabytes that the last stages,
    # which read only the documents, would otherwise carry to the end of the run)
    readers: dict[str, set[str]] = {}
    for s in ordered:
        for name in s.inputs:
            readers.setdefault(name, set()).add(s.name)
    executor = make_executor(executor_kind, jobs, address)
    deps = dependencies(ordered)
    chain = chain_weights(ordered)
    width = _width(executor.jobs)

    def load_input(name: str) -> pa.Table:
        if name not in tables:
            tables[name] = _read_tmp(writer.tmp, name)
        return tables[name]

    def execute(stage: Stage, ctx: StageContext, fp: str, code: str) -> StageRecord:
        t0 = time.perf_counter()
        for name in stage.outputs:
            if artifact(name).format == "dir":
                ctx.output_dir(name).mkdir(parents=True, exist_ok=True)
        try:
            result = stage.run(ctx)
        except GitstrataError:
            raise
        except Exception as exc:
            raise StageError(
                f"stage {stage.name!r} failed: {type(exc).__name__}: {exc}",
                hint="the previous index is still live; rerun with --rebuild, or report this",
            ) from exc
        missing = [
            n for n in stage.outputs if artifact(n).format != "dir" and n not in result.tables
        ]
        if missing:
            raise StageError(f"stage {stage.name!r} did not produce {', '.join(missing)}")
        outputs = {}
        for name in stage.outputs:
            if artifact(name).format == "dir":
                outputs[name] = writer.finish_dir(name, previous)
            else:
                outputs[name] = writer.write_table(name, result.tables[name])
                if readers.get(name):
                    tables[name] = result.tables[name]
        return StageRecord(
            fingerprint=fp,
            outputs=outputs,
            seconds=round(time.perf_counter() - t0, 4),
            skipped=False,
            state={**result.state, CODE_VERSION: code},
            stats=result.stats,
        )

    def finish(stage: Stage, rec: StageRecord, seconds: float) -> None:
        for info_name, info in rec.outputs.items():
            sha_of[info_name] = info.sha256
        records[stage.name] = rec
        for name in stage.inputs:
            if readers[name] <= records.keys():
                tables.pop(name, None)
        release_free_heap()
        progress.stage_finished(stage.name, len(records), len(ordered), seconds, rec.skipped)
        reports[stage.name] = StageReport(
            name=stage.name,
            skipped=rec.skipped,
            seconds=seconds,
            rows={n: o.rows for n, o in rec.outputs.items()},
            stats=rec.stats,
        )

    def start(stage: Stage) -> Future[StageRecord] | None:
        """Carry `stage` over (None) or start it (its future)."""
        progress.stage_started(stage.name, len(records) + 1, len(ordered))
        source_value = {"tree": tree, "head": head, None: None}[stage.source]
        inputs_fp = {name: sha_of[name] for name in stage.inputs}
        code = stage_code_version(stage)
        ctx = StageContext(
            stage=stage,
            code_version=code,
            git=git,
            head=head,
            tree=tree,
            config=config,
            jobs=executor.jobs,
            executor=executor,
            progress=progress,
            store_root=store.root,
            rebuild=rebuild,
            previous_generation=previous,
            _inputs=load_input,
            _output_dir=lambda name: writer.tmp / artifact(name).file,
        )
        extra = stage.extra(ctx) if stage.extra is not None else ""
        fp = fingerprint(stage, code, config, source_value, inputs_fp, extra)
        prev_rec = previous.manifest.stages.get(stage.name) if previous is not None else None
        if (
            not rebuild
            and prev_rec is not None
            and prev_rec.fingerprint == fp
            and prev_rec.code_version == code
            and set(prev_rec.outputs) == set(stage.outputs)
            and previous is not None
        ):
            t0 = time.perf_counter()
            outputs = {name: writer.carry(previous, name) for name in stage.outputs}
            rec = StageRecord(
                fingerprint=fp,
                outputs=outputs,
                seconds=0.0,
                skipped=True,
                state=prev_rec.state,
                stats=prev_rec.stats,
            )
            finish(stage, rec, time.perf_counter() - t0)
            return None
        return _in_thread(f"stage-{stage.name}", lambda: execute(stage, ctx, fp, code))

    pending = list(ordered)
    running: dict[Future[StageRecord], tuple[Stage, float]] = {}

    def takes_place(stage: Stage) -> bool:
        """A stage whose work runs in a child process (`Stage.child`) takes none of the places."""
        return not (stage.child and executor.jobs > 1)

    failure: BaseException | None = None
    try:
        while pending or running:
            # start what is ready; a stage carried over may make more ready at once
            carried = True
            while carried and failure is None:
                carried = False
                ready = sorted(
                    (s for s in pending if deps[s.name] <= records.keys()),
                    key=lambda s: -chain[s.name],  # stable: declaration order among equals
                )
                places = width - sum(takes_place(s) for s, _ in running.values())
                aside = [s for s in ready if not takes_place(s)]
                for stage in aside + [s for s in ready if takes_place(s)][: max(0, places)]:
                    pending.remove(stage)
                    t0 = time.perf_counter()
                    future = start(stage)
                    if future is None:
                        carried = True
                        break
                    running[future] = (stage, t0)
            if not running:
                # nothing runs: either everything is done, a stage was carried over and the
                # loop looks again, or (never, in a graph `order_stages` accepted) a stage waits
                # for one that is not coming
                stuck = [s.name for s in pending if not deps[s.name] <= records.keys()]
                if pending and len(stuck) == len(pending):
                    raise StageError(f"stages {', '.join(stuck)} wait for inputs nothing writes")
                continue
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: ordered.index(running[f][0])):
                stage, t0 = running.pop(future)
                error = future.exception()
                if error is not None:
                    # the stages still running finish before the error is raised: the temp
                    # folder they write into is removed only after they are done with it
                    failure = failure or error
                    pending.clear()
                    continue
                finish(stage, future.result(), time.perf_counter() - t0)
        if failure is not None:
            raise failure
    finally:
        executor.close()
    return records, [reports[s.name] for s in ordered]


# stages at once: the ones off the heaviest chain (blame, co-change, firewall after the history
# is extracted) overlap the chain's (documents, embed) instead of waiting for them
PARALLEL_STAGES = 3


def _width(jobs: int) -> int:
    return max(1, min(PARALLEL_STAGES, jobs))


def _in_thread(name: str, work: Callable[[], StageRecord]) -> Future[StageRecord]:
    """`work` on a daemon thread of its own: an interrupted run exits at once rather than
    waiting for a stage whose temp folder is being removed anyway."""
    future: Future[StageRecord] = Future()
    future.set_running_or_notify_cancel()

    def body() -> None:
        try:
            future.set_result(work())
        except BaseException as exc:  # handed to the caller, which raises it
            future.set_exception(exc)

    threading.Thread(target=body, name=name, daemon=True).start()
    return future


def _read_tmp(folder: Path, name: str) -> pa.Table:
    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq

    spec = artifact(name)
    path = folder / spec.file
    if spec.format == "parquet":
        return pq.read_table(path)
    if spec.format == "arrow":
        return ipc.open_file(pa.memory_map(str(path), "r")).read_all()
    raise KeyError(f"{name} is a folder artifact; use ctx.input_path()")
