"""After one new commit the last stages redo only what changed: the documents stage tokenizes
only new and changed documents, and embed (without a refit) keeps every unchanged document's
vector; what they publish is what a full rebuild publishes."""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
from conftest import GitRepo

from gitstrata.pipeline.runner import run_index
from gitstrata.store.fulltext import FullText
from gitstrata.store.generations import Store


def _module(name: str, n: int) -> str:
    return "".join(
        f"def {name}_step{i}(value):\n    return value + {i}  # {name} stage {i}\n\n"
        for i in range(n)
    )


def _repo(path: Path) -> GitRepo:
    repo = GitRepo(path)
    for k, name in enumerate(("billing", "orders", "search", "shipping")):
        repo.commit(f"feat: {name} steps", {f"src/{name}.py": _module(name, 6 + k)})
    return repo


def _search(index: Path, text: str) -> list[tuple[str, float]]:
    gen = Store(index).live()
    assert gen is not None
    ids = gen.table("documents").column("doc_id").to_pylist()
    idx, scores = FullText.open(gen.file("fulltext")).search(text, top_k=50)
    return [
        (ids[i], round(float(s), 4)) for i, s in zip(idx.tolist(), scores.tolist(), strict=True)
    ]


def _table(index: Path, name: str) -> pa.Table:
    gen = Store(index).live()
    assert gen is not None
    return gen.table(name)


def test_one_new_commit_tokenizes_and_embeds_only_the_changed_documents(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    index = tmp_path / "index"
    first = run_index(repo.path, index, executor="inline")
    documents = first.stage("documents")
    assert documents is not None
    total = documents.stats["documents"]
    assert documents.stats["tokenized"] == total

    repo.commit(
        "fix: orders step 2 adds twice",
        {"src/orders.py": _module("orders", 7).replace("value + 2 ", "value + 2 + 2 ")},
    )
    second = run_index(repo.path, index, executor="inline")
    documents, embed = second.stage("documents"), second.stage("embed")
    assert documents is not None and embed is not None
    # the new commit's document and the edited function's; nothing else is tokenized again
    assert documents.stats["documents"] == total + 1
    assert documents.stats["tokenized"] == 2
    assert embed.stats["refit"] is False
    assert embed.stats["reused_vectors"] == total - 1

    rebuilt = tmp_path / "rebuilt"
    run_index(repo.path, rebuilt, executor="inline")
    # the terms kept from the previous table sit in the rows a fresh tokenization gives them
    assert _table(index, "doc_terms").equals(_table(rebuilt, "doc_terms"))
    for text in ("orders step", "billing value", "shipping stage 3", "adds twice"):
        assert _search(index, text) == _search(rebuilt, text), text


def test_the_full_text_index_is_built_in_a_child_process_or_here_when_none_starts(
    tmp_path: Path, monkeypatch
) -> None:
    """With two jobs the index is built by a child interpreter; where none can be started (a
    host embedding Python) it is built in this process, the same index either way."""
    repo = _repo(tmp_path / "repo")
    child = run_index(repo.path, tmp_path / "child", jobs=2).stage("fulltext")
    assert child is not None and child.stats["in_child"] is True
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    here = run_index(repo.path, tmp_path / "here", jobs=2).stage("fulltext")
    assert here is not None and here.stats["in_child"] is False
    assert here.stats["documents"] == child.stats["documents"]
    for text in ("orders step", "billing value", "shipping stage 3"):
        assert _search(tmp_path / "child", text) == _search(tmp_path / "here", text), text
