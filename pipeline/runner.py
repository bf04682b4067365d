"""The runner: decides what is stale, runs it, and publishes one new generation atomically.

Flow of `run_index`: validate the repository and the stage graph, take the index lock, then for
each stage in order compute its fingerprint; a stage whose fingerprint equals the previous
generation's is carried over (hard links), any other runs. Only when every stage succeeded is the
new generation published; any failure removes the temp folder and leaves the live one untouched.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

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
from .stage import Stage, StageContext, StageResult

_T = TypeVar("_T")


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
    if config.index.blame and config.index.blame_ignore_revs:
        for name in git.blame_ignore_files()[1]:
            warnings.append(
                f"blame.ignoreRevsFile names {name}, which this checkout does not have: blame "
                "looks through the files it names that exist (`git blame` itself stops here)"
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


@dataclass
class _Job:
    """A stage that runs in this run: what its fingerprint is made of, and its result once its
    work is done."""

    stage: Stage
    ctx: StageContext
    code: str
    source: str | None
    extra: str
    started: float
    fingerprint: str | None = None  # known at the start when every input was written then
    result: StageResult | None = None


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
    """Run or carry over every stage. A stage starts once the stages writing its inputs have
    made them, up to `_width` stages at once (the heaviest chain of dependents first).

    A stage's work has two steps, each on a thread of its own: running it, then writing its
    artifacts. Its dependents start as soon as the first step is done, with its tables in
    memory: the files are still being written and hashed, so their fingerprints are not known
    yet. Once they are, a dependent whose fingerprint equals the previous generation's is
    carried over after all (its result is dropped; a stage's output is a function of its
    fingerprint); a stage whose inputs were all written when it became ready is decided before
    it runs. The progress says a stage is done once its tables are made. Fingerprints,
    carry-overs and progress lines are decided here, in the calling thread."""
    records: dict[str, StageRecord] = {}
    reports: dict[str, StageReport] = {}
    sha_of: dict[str, str] = {}  # artifact -> sha256 in this run
    tables: dict[str, pa.Table] = {}  # artifacts made in this run, kept for later stages
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

    def run(job: _Job) -> StageResult:
        stage = job.stage
        for name in stage.outputs:
            if artifact(name).format == "dir":
                job.ctx.output_dir(name).mkdir(parents=True, exist_ok=True)
        try:
            result = stage.run(job.ctx)
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
        for name in stage.outputs:
            if artifact(name).format != "dir" and readers.get(name):
                tables[name] = result.tables[name]
        return result

    def write(job: _Job, fp: str) -> StageRecord:
        result = job.result
        assert result is not None
        outputs = {}
        for name in job.stage.outputs:
            if artifact(name).format == "dir":
                outputs[name] = writer.finish_dir(name, previous)
            else:
                outputs[name] = writer.write_table(name, result.tables[name])
        return StageRecord(
            fingerprint=fp,
            outputs=outputs,
            seconds=round(time.perf_counter() - job.started, 4),
            skipped=False,
            state={**result.state, CODE_VERSION: job.code},
            stats=result.stats,
        )

    # stages whose tables are made (in memory, or written or carried over): the progress says
    # they are done, and the stages reading them may start
    made: set[str] = set()

    def announce(stage: Stage, seconds: float, skipped: bool) -> None:
        made.add(stage.name)
        progress.stage_finished(stage.name, len(made), len(ordered), seconds, skipped)

    def finish(stage: Stage, rec: StageRecord, seconds: float) -> None:
        for info_name, info in rec.outputs.items():
            sha_of[info_name] = info.sha256
        records[stage.name] = rec
        for name in stage.inputs:
            if readers[name] <= records.keys():
                tables.pop(name, None)
        release_free_heap()
        if stage.name not in made:
            announce(stage, seconds, rec.skipped)
        reports[stage.name] = StageReport(
            name=stage.name,
            skipped=rec.skipped,
            seconds=seconds,
            rows={n: o.rows for n, o in rec.outputs.items()},
            stats=rec.stats,
        )

    def fingerprint_of(job: _Job) -> str:
        inputs_fp = {name: sha_of[name] for name in job.stage.inputs}
        return fingerprint(job.stage, job.code, config, job.source, inputs_fp, job.extra)

    def carried(job: _Job, fp: str) -> bool:
        """Carry `job`'s stage over when `fp` is the previous generation's fingerprint."""
        stage = job.stage
        prev_rec = previous.manifest.stages.get(stage.name) if previous is not None else None
        if (
            rebuild
            or previous is None
            or prev_rec is None
            or prev_rec.fingerprint != fp
            or prev_rec.code_version != job.code
            or set(prev_rec.outputs) != set(stage.outputs)
        ):
            return False
        t0 = time.perf_counter()
        for name in stage.outputs:  # what a run that turned out not to be needed wrote
            if artifact(name).format == "dir":
                shutil.rmtree(writer.tmp / artifact(name).file, ignore_errors=True)
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
        return True

    def start(stage: Stage) -> _Job | None:
        """Carry `stage` over (None) or start running it (its job)."""
        progress.stage_started(stage.name, len(made) + 1, len(ordered))
        ctx = StageContext(
            stage=stage,
            code_version=stage_code_version(stage),
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
        job = _Job(
            stage=stage,
            ctx=ctx,
            code=ctx.code_version,
            source={"tree": tree, "head": head, None: None}[stage.source],
            extra=stage.extra(ctx) if stage.extra is not None else "",
            started=time.perf_counter(),
        )
        if deps[stage.name] <= records.keys():
            job.fingerprint = fingerprint_of(job)
            if carried(job, job.fingerprint):
                return None
        return job

    pending = list(ordered)
    running: dict[Future[Any], _Job] = {}  # a job's run, then its writing
    ran: list[_Job] = []  # run, waiting for the fingerprints of its inputs

    def takes_place(stage: Stage) -> bool:
        """A stage whose work runs in a child process (`Stage.child`) takes none of the places."""
        return not (stage.child and executor.jobs > 1)

    failure: BaseException | None = None
    try:
        while pending or running or ran:
            # start what is ready; a stage carried over may make more ready at once
            progressed = True
            while progressed and failure is None:
                progressed = False
                for job in [j for j in ran if deps[j.stage.name] <= records.keys()]:
                    ran.remove(job)
                    fp = job.fingerprint or fingerprint_of(job)
                    if job.fingerprint is None and carried(job, fp):
                        progressed = True
                        continue
                    running[_in_thread(f"write-{job.stage.name}", partial(write, job, fp))] = job
                ready = sorted(
                    (s for s in pending if deps[s.name] <= made),
                    key=lambda s: -chain[s.name],  # stable: declaration order among equals
                )
                # a stage writing its artifacts keeps its place only when there is one place:
                # the writing is mostly compression and hashing, outside the interpreter lock
                busy = [
                    j.stage for j in [*running.values(), *ran] if width == 1 or j.result is None
                ]
                places = width - sum(takes_place(s) for s in busy)
                aside = [s for s in ready if not takes_place(s)]
                for stage in aside + [s for s in ready if takes_place(s)][: max(0, places)]:
                    pending.remove(stage)
                    started = start(stage)
                    if started is None:
                        progressed = True
                        break
                    running[_in_thread(f"stage-{stage.name}", partial(run, started))] = started
            if not running:
                # nothing runs: either everything is done, a stage was carried over and the
                # loop looks again, or (never, in a graph `order_stages` accepted) a stage waits
                # for one that is not coming
                if failure is not None:
                    break
                stuck = [s.name for s in pending if not deps[s.name] <= made]
                stuck += [j.stage.name for j in ran]
                if stuck and len(stuck) == len(pending) + len(ran):
                    raise StageError(f"stages {', '.join(stuck)} wait for inputs nothing writes")
                continue
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: ordered.index(running[f].stage)):
                job = running.pop(future)
                error = future.exception()
                if error is not None:
                    # the stages still running finish before the error is raised: the temp
                    # folder they write into is removed only after they are done with it
                    failure = failure or error
                    pending.clear()
                    ran.clear()
                    continue
                outcome = future.result()
                if isinstance(outcome, StageRecord):
                    job.result = None  # its tables: kept now only for the stages reading them
                    finish(job.stage, outcome, time.perf_counter() - job.started)
                else:
                    # said done now: what is left, writing its files, runs beside its readers
                    announce(job.stage, time.perf_counter() - job.started, False)
                    job.result = outcome
                    ran.append(job)
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


def _in_thread(name: str, work: Callable[[], _T]) -> Future[_T]:
    """`work` on a daemon thread of its own: an interrupted run exits at once rather than
    waiting for a stage whose temp folder is being removed anyway."""
    future: Future[_T] = Future()
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
