"""The query dataset: split sizes, class coverage, well-formed graded targets, and the guard that
keeps held-out query text out of every test file."""

from __future__ import annotations

import json
import re
from collections import Counter
from fnmatch import fnmatch
from pathlib import Path

import pytest

from gitstrata.benchmarks import dataset
from gitstrata.benchmarks.dataset import HELDOUT_SPLITS, QUERY_CLASSES, SPLITS, Query, queries
from gitstrata.benchmarks.failures import failure_records
from gitstrata.benchmarks.fixture_content import COMMITS
from gitstrata.store.errors import InputError

TARGET = re.compile(r"^(?:symbol:[\w./-]+::[\w.<>]+|commit:[a-z0-9_]+|file:[\w./-]+)$")
WINDOW = 6


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9_]+", text.lower())


def _windows(text: str) -> set[str]:
    words = _words(text)
    return {" ".join(words[i : i + WINDOW]) for i in range(len(words) - WINDOW + 1)}


def test_split_sizes() -> None:
    assert ("dev", *HELDOUT_SPLITS) == SPLITS
    assert HELDOUT_SPLITS == (
        "heldout_v1",
        "heldout_v2",
        "heldout_v3",
        "heldout_v4",
        "heldout_v5",
        "heldout_v6",
        "heldout_v7",
        "heldout_v8",
        "heldout_v9",
        "heldout_v10",
        "heldout_v11",
        "heldout_v12",
        "heldout_v13",
        "heldout_v14",
        "heldout_v15",
        "heldout_v16",
        "heldout_v17",
        "heldout_v18",
        "heldout_v19",
        "heldout_v20",
        "heldout_v21",
    )
    assert len(queries("dev")) == 64
    assert len(queries("heldout_v1")) == 35
    assert len(queries("heldout_v2")) == 38
    assert len(queries("heldout_v3")) == 30
    assert len(queries("heldout_v4")) == 30
    assert len(queries("heldout_v5")) == 30
    assert len(queries("heldout_v6")) == 44
    assert len(queries("heldout_v7")) == 53
    assert len(queries("heldout_v8")) == 55
    assert len(queries("heldout_v9")) == 60
    assert len(queries("heldout_v10")) == 60
    assert len(queries("heldout_v11")) == 60
    assert len(queries("heldout_v12")) == 60
    assert len(queries("heldout_v13")) == 60
    assert len(queries("heldout_v14")) == 60
    assert len(queries("heldout_v15")) == 60
    assert len(queries("heldout_v16")) == 60
    assert len(queries("heldout_v17")) == 60
    assert len(queries("heldout_v18")) == 60
    assert len(queries("heldout_v19")) == 60
    assert len(queries("heldout_v20")) == 60
    assert len(queries("heldout_v21")) == 60


@pytest.mark.parametrize("split", SPLITS)
def test_every_class_is_covered(split: str) -> None:
    counts = Counter(q.query_class for q in queries(split))
    assert set(counts) == set(QUERY_CLASSES)
    assert min(counts.values()) >= 5


def test_ids_are_unique_and_prefixed_by_split() -> None:
    ids = [q.id for split in SPLITS for q in queries(split)]
    assert len(ids) == len(set(ids))
    prefixes = {
        "dev": "dev-",
        "heldout_v1": "h1-",
        "heldout_v2": "v2-",
        "heldout_v3": "v3-",
        "heldout_v4": "v4-",
        "heldout_v5": "v5-",
        "heldout_v6": "v6-",
        "heldout_v7": "v7-",
        "heldout_v8": "v8-",
        "heldout_v9": "v9-",
        "heldout_v10": "v10-",
        "heldout_v11": "v11-",
        "heldout_v12": "v12-",
        "heldout_v13": "v13-",
        "heldout_v14": "v14-",
        "heldout_v15": "v15-",
        "heldout_v16": "v16-",
        "heldout_v17": "v17-",
        "heldout_v18": "v18-",
        "heldout_v19": "v19-",
        "heldout_v20": "v20-",
        "heldout_v21": "v21-",
    }
    for split in SPLITS:
        for q in queries(split):
            assert q.split == split
            assert q.id.startswith(prefixes[split] + q.query_class + "-")


def test_unknown_split_is_an_input_error() -> None:
    with pytest.raises(InputError):
        queries("test")


@pytest.mark.parametrize("split", SPLITS)
def test_relevance_is_graded_and_well_formed(split: str) -> None:
    names = {spec.name for spec in COMMITS}
    for q in queries(split):
        targets = [r.target for r in q.relevant]
        assert len(targets) == len(set(targets)), q.id
        assert all(TARGET.match(t) for t in targets), q.id
        assert max(r.grade for r in q.relevant) == 3, q.id
        assert {r.commit_name for r in q.relevant if r.kind == "commit"} <= names, q.id
        assert q.text == q.text.strip() and q.text, q.id


@pytest.mark.parametrize("split", SPLITS)
def test_warnings_and_coupled_files(split: str) -> None:
    count = len(failure_records())
    for q in queries(split):
        assert all(0 <= i < count for i in q.expected_warnings), q.id
        assert bool(q.coupled_files) == (q.query_class == "coupled"), q.id


@pytest.mark.parametrize("split", SPLITS)
def test_file_filters_keep_every_answer(split: str) -> None:
    records = failure_records()
    filtered = [q for q in queries(split) if q.file_filter is not None]
    assert filtered
    for q in filtered:
        paths = [r.path for r in q.relevant if r.path is not None]
        paths += [records[i]["file_path"] for i in q.expected_warnings]
        assert all(fnmatch(p, q.file_filter) for p in paths), q.id


def test_dev_expects_every_recorded_failure_somewhere() -> None:
    expected = {i for q in queries("dev") for i in q.expected_warnings}
    assert expected == set(range(len(failure_records())))


def test_query_model_round_trips_through_json() -> None:
    q = queries("dev")[0]
    data = json.loads(q.model_dump_json(by_alias=True))
    assert data["class"] == "causal"
    assert Query.model_validate(data) == q
    assert q.commit_names() == ("cache_perf_revert", "cache_perf_lockfree", "cache_race_test")


def test_dataset_cli_prints_dev_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert dataset.main(["--split", "dev", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["id"] for row in rows] == [q.id for q in queries("dev")]
    assert set(rows[0]) == {
        "id",
        "split",
        "class",
        "text",
        "file_filter",
        "relevant",
        "expected_warnings",
        "coupled_files",
    }


def test_held_out_queries_are_not_paraphrases_of_dev() -> None:
    dev_texts = {" ".join(_words(q.text)) for q in queries("dev")}
    dev_windows = set().union(*(_windows(q.text) for q in queries("dev")))
    for split in HELDOUT_SPLITS:
        for q in queries(split):
            assert " ".join(_words(q.text)) not in dev_texts, q.id
            assert not (_windows(q.text) & dev_windows), q.id


def test_no_test_file_contains_held_out_query_text() -> None:
    """No test may run (or even spell out) a held-out query before its evaluation."""
    dev_windows = set().union(*(_windows(q.text) for q in queries("dev")))
    needles: set[str] = set()
    for split in HELDOUT_SPLITS:
        for q in queries(split):
            needles.add(" ".join(_words(q.text)))
            needles |= _windows(q.text) - dev_windows
    dataset_module = Path(dataset.__file__).resolve()
    tests_dir = Path(__file__).resolve().parent
    offenders = []
    for path in sorted(tests_dir.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or path.resolve() == dataset_module:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        haystack = f" {' '.join(_words(text))} "
        offenders += [(path.name, n) for n in sorted(needles) if f" {n} " in haystack]
    assert offenders == []


@pytest.mark.parametrize("split", ["heldout_v3", "heldout_v4", "heldout_v5"])
def test_warning_splits_balance_expected_warnings_with_same_file_controls(split: str) -> None:
    """v3, v4 and v5 measure whether a warning fits the change: about half their queries expect a
    recorded failure, and most of the others point at a file some failure changed, where none is
    due."""
    records = failure_records()
    failed_files = {r["file_path"] for r in records}
    items = queries(split)
    warned = [q for q in items if q.expected_warnings]
    controls = [q for q in items if not q.expected_warnings]
    assert 0.4 <= len(warned) / len(items) <= 0.6
    on_failed_files = [q for q in controls if {r.path for r in q.relevant} & failed_files]
    assert len(on_failed_files) >= len(controls) * 0.8


def test_v6_mixes_warning_probes_with_controls_in_every_class() -> None:
    """v6 asks as a new user would: every class, a third expecting a recorded failure, and at
    least twelve controls where any warning is a false alarm."""
    items = queries("heldout_v6")
    assert len(items) >= 40
    assert {q.query_class for q in items} == set(QUERY_CLASSES)
    controls = [q for q in items if not q.expected_warnings]
    assert len(controls) >= 12
    assert 0.2 <= 1 - len(controls) / len(items) <= 0.4
    # Natural-language questions that name a path or identifier, not only bare lookups.
    named = [
        q
        for q in items
        if q.query_class != "exact"
        and re.search(r"[\w-]+/[\w./-]+\.\w+|\w+_\w+|[a-z][A-Z]", q.text)
    ]
    assert len(named) >= 10


@pytest.mark.parametrize(
    "split",
    [
        "heldout_v7",
        "heldout_v8",
        "heldout_v9",
        "heldout_v10",
        "heldout_v11",
        "heldout_v12",
        "heldout_v13",
        "heldout_v14",
        "heldout_v15",
        "heldout_v16",
        "heldout_v17",
        "heldout_v18",
        "heldout_v19",
        "heldout_v20",
        "heldout_v21",
    ],
)
def test_warning_probes_balance_same_code_controls_in_every_class(split: str) -> None:
    """v7 to v21 measure whether a warning fits what is asked or intended: every class has
    queries that expect a recorded failure and controls that do not, and most controls ask
    about, look up or change a file that some failure changed, where a file-only match must stay
    silent."""
    records = failure_records()
    failed_files = {r["file_path"] for r in records}
    items = queries(split)
    assert len(items) >= 40
    warned = [q for q in items if q.expected_warnings]
    controls = [q for q in items if not q.expected_warnings]
    assert 0.4 <= len(warned) / len(items) <= 0.6
    assert len(controls) >= 12
    for cls in QUERY_CLASSES:
        assert any(q.query_class == cls for q in warned), cls
        assert any(q.query_class == cls for q in controls), cls
    on_failed_files = [q for q in controls if {r.path for r in q.relevant} & failed_files]
    assert len(on_failed_files) >= len(controls) * 0.6
    # Re-attempts are worded in many ways: every failure except one duplicate is probed.
    probed = {i for q in warned for i in q.expected_warnings}
    assert len(probed) >= 15
