"""The runner keeps a table written in a run for the stages that read it, and no longer."""

from __future__ import annotations

import gc
import weakref
from dataclasses import replace

from gitstrata.pipeline import runner
from gitstrata.pipeline.registry import default_stages
from gitstrata.pipeline.runner import run_index
from gitstrata.store.generations import Store

FILES = {
    "app/core.py": "def area(w, h):\n    return w * h\n\n\ndef label(x):\n    return str(x)\n",
    "app/cli.py": "from app.core import area\n\n\ndef main():\n    print(area(2, 3))\n",
}


def test_a_table_is_dropped_once_every_stage_reading_it_is_done(git_repo, tmp_path, monkeypatch):
    r = git_repo
    r.commit("feat: area and label", FILES)
    r.commit(
        "fix: label of None", {"app/core.py": FILES["app/core.py"].replace("str(x)", "f'{x}'")}
    )
    r.commit("feat: the command", {"app/cli.py": FILES["app/cli.py"] + "\nmain()\n"})
    stages = default_stages()
    written: dict[str, weakref.ref] = {}  # artifact -> the table its stage returned
    done: list[str] = []
    alive_at_start: dict[str, set[str]] = {}
    reread: list[str] = []

    def watched(stage):
        def run(ctx):
            gc.collect()
            alive_at_start[stage.name] = {n for n, ref in written.items() if ref() is not None}
            result = stage.run(ctx)
            for name, table in result.tables.items():
                written[name] = weakref.ref(table)
            done.append(stage.name)
            return result

        return replace(stage, run=run)

    read_tmp = runner._read_tmp

    def counted(folder, name):
        reread.append(name)
        return read_tmp(folder, name)

    monkeypatch.setattr(runner, "_read_tmp", counted)
    # one stage at a time: each starts after the one before it has been finished by the runner
    report = run_index(r.path, tmp_path / "index", stages=[watched(s) for s in stages], jobs=1)
    assert Store(tmp_path / "index").live() is not None and report.stages
    # every table a stage read was the one kept from this run, none read back from disk
    assert reread == []
    readers: dict[str, set[str]] = {}
    for s in stages:
        for name in s.inputs:
            readers.setdefault(name, set()).add(s.name)
    by_name = {s.name: s for s in stages}
    for i, name in enumerate(done):
        before = set(done[:i])
        for table in alive_at_start[name]:
            # alive: a stage not yet finished reads it (this one, or a later one)
            assert not readers.get(table, set()) <= before, (name, table)
        # and a table this stage reads is alive when it starts, unless a folder artifact
        for table in by_name[name].inputs:
            if table in written and table in {t for s in done[:i] for t in by_name[s].outputs}:
                assert table in alive_at_start[name], (name, table)
