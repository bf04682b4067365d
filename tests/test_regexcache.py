"""The compiled-pattern cache: what it rebuilds is what `re.compile` makes, and a bad or missing
file only costs time."""

from __future__ import annotations

import json
import mmap
import os
import re
import stat
from pathlib import Path

import pytest

from gitstrata.serve import firewall_lexicon, router, router_model
from gitstrata.serve.firewall_rules import RULES
from gitstrata.stages import intent, memory_sources, patch, spanrules, spans
from gitstrata.stages.chunking import imports, rules, structural, treesitter, treesitter_clike
from gitstrata.stages.chunking import source as chunk_source
from gitstrata.store import filekind, redact, regexcache, tokenizer
from gitstrata.store.secret_formats import TOKEN_FORMATS

# the modules whose patterns are made through the cache
STAGE_MODULES = (filekind, intent, memory_sources, patch, spanrules, spans, imports, rules)
STAGE_MODULES += (chunk_source, structural, treesitter, treesitter_clike, tokenizer)

CORPUS = Path(__file__).resolve().parents[1] / "benchmarks" / "firewall_corpus"


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("GITSTRATA_REGEX_CACHE", raising=False)
    fresh()
    yield tmp_path / "gitstrata"
    fresh()


def fresh() -> None:
    """This process forgets what it compiled, as a new process would."""
    regexcache._stored = None
    regexcache._entries = {}
    regexcache._used = {}
    regexcache._dirty = False


def texts() -> list[str]:
    """Injections and honest developer text in many languages and scripts (the dev split only:
    the held-out ones stay out of the tests)."""
    out = []
    for name in ("injections.jsonl", "benign.jsonl"):
        with open(CORPUS / name, encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh if line.strip()]
        out += [r["text"] for r in rows if r.get("split") == "dev"]
    return out


def sources() -> list[tuple[str, int]]:
    """The patterns made through the cache: every firewall rule's and lexicon pattern's, the
    query router's and its learned reader's, the redactor's and the credential formats'."""
    found = [(rule.source, re.IGNORECASE | re.MULTILINE) for rule in RULES]
    for lazy in list(firewall_lexicon._MADE):
        source = lazy._source if isinstance(lazy._source, str) else lazy._source()
        found.append((source, lazy._flags))
    for module in (router, router_model, redact, *STAGE_MODULES):
        found += [(v.pattern, v.flags) for v in _patterns(vars(module))]
    found += [(pattern.pattern, pattern.flags) for _, _, pattern in TOKEN_FORMATS]
    return found


def _patterns(value: object) -> list[re.Pattern]:
    """The compiled patterns in a module's namespace, also inside its tables of them."""
    if isinstance(value, re.Pattern):
        return [value]
    if isinstance(value, dict):
        return [p for v in value.values() for p in _patterns(v)]
    if isinstance(value, list | tuple):
        return [p for v in value for p in _patterns(v)]
    return []


def behaviour(pattern: re.Pattern, corpus: list[str]) -> list:
    texts = [t.encode() for t in corpus] if isinstance(pattern.pattern, bytes) else corpus
    return [
        pattern.flags,
        pattern.groups,
        sorted(pattern.groupindex.items()),
        [[(m.span(), m.groups()) for m in pattern.finditer(t)] for t in texts],
    ]


def test_patterns_from_the_file_match_what_re_compile_makes(cache_home: Path) -> None:
    corpus = texts()
    assert len(corpus) > 100
    made = sources()
    assert len(made) > 250
    for source, flags in made:
        regexcache.compile_pattern(source, flags)
    regexcache.save()
    fresh()

    def refuse(source: str, flags: int):
        raise AssertionError("compiled again although the file holds it")

    original = regexcache._instructions
    regexcache._instructions = refuse  # type: ignore[assignment]
    try:
        for source, flags in made:
            cached = regexcache.compile_pattern(source, flags)
            assert cached.pattern == source
            assert behaviour(cached, corpus) == behaviour(re.compile(source, flags), corpus)
    finally:
        regexcache._instructions = original  # type: ignore[assignment]


def test_the_file_is_private_and_replaced_whole(cache_home: Path) -> None:
    cache_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    name = regexcache._file().name  # type: ignore[union-attr]
    for earlier in ("-packed.marshal", ".marshal"):
        (cache_home / name.replace("-indexed.marshal", earlier)).write_bytes(b"an earlier format")
    regexcache.compile_pattern(r"(?P<word>\w+)-(\d+)")
    regexcache.save()
    files = list(cache_home.iterdir())  # the earlier formats' files are gone
    assert len(files) == 1 and files[0].name.startswith("regex-")
    assert stat.S_IMODE(os.stat(cache_home).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(files[0]).st_mode) == 0o600
    # another process adds its own: both are kept
    fresh()
    regexcache.compile_pattern(r"other\s+pattern", re.I)
    regexcache.save()
    fresh()
    assert len(regexcache._load()) == 2


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not marshal at all",
        b"\xe9\x00\x00\x00",
        "cut-short",
        "wrong-shape",
        "not-unpacking",
        "outside",
        "huge-index",
    ],
)
def test_a_damaged_file_falls_back_to_compiling(cache_home: Path, content: bytes | str) -> None:
    import marshal

    regexcache.compile_pattern(r"abc(d)")
    regexcache.save()
    (path,) = cache_home.iterdir()
    key = regexcache._key(r"abc(d)", 0)
    if content == "cut-short":  # the file ends inside its entry
        data = regexcache._pack({key: marshal.dumps((0, [1], 1, {}, (None,)))})[:-9]
    elif content == "wrong-shape":  # an entry of the right shape whose code the engine refuses
        data = regexcache._pack({key: marshal.dumps((0, ["x"], 1, {}, (None,)))})
    elif content == "not-unpacking":
        data = regexcache._pack({key: b"\xe9garbage"})
    elif content == "huge-index":  # a length no file has: never allocated
        data = regexcache.MAGIC + (1 << 62).to_bytes(8, "little") + b"\x00" * 16
    elif content == "outside":  # the index names bytes past the end of the file
        head = marshal.dumps({key: (0, 1 << 20)})
        data = regexcache.MAGIC + len(head).to_bytes(8, "little") + head + b"\x00" * 16
    else:
        assert isinstance(content, bytes)
        data = content
    path.write_bytes(data)
    fresh()
    pattern = regexcache.compile_pattern(r"abc(d)")
    assert pattern.search("xxabcd").span() == (2, 6)
    regexcache.save()  # the damaged file is replaced by a sound one
    fresh()
    entry = regexcache._unpacked(regexcache._load()[key])
    assert regexcache._valid(entry)
    assert entry[1] != ["x"]


def test_a_process_reads_only_the_entries_it_uses(cache_home: Path) -> None:
    for i in range(50):
        regexcache.compile_pattern(rf"word{i}\s+(\d+)")
    regexcache.save()
    fresh()
    stored = regexcache._load()
    assert len(stored) == 50
    assert isinstance(stored._data, mmap.mmap)  # mapped, not read
    assert regexcache._unpacked(stored[regexcache._key(r"word7\s+(\d+)", 0)])[0] == 32


def test_a_full_file_keeps_what_was_used_last(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the limit the least recently used patterns go: what a process made or used stays for
    the next one (a file that kept its oldest entries instead made every process compile the
    same new patterns again)."""
    monkeypatch.setattr(regexcache, "MAX_ENTRIES", 4)

    def run(*patterns: str) -> list[str]:
        """Compile `patterns` in a fresh process; the ones not found in the file."""
        fresh()
        missed = []
        original = regexcache._instructions

        def spy(source: str, flags: int):
            missed.append(source)
            return original(source, flags)

        monkeypatch.setattr(regexcache, "_instructions", spy)
        for p in patterns:
            assert regexcache.compile_pattern(p).pattern == p
        regexcache.save()
        monkeypatch.setattr(regexcache, "_instructions", original)
        return missed

    assert run("a1", "a2", "a3", "a4") == ["a1", "a2", "a3", "a4"]
    assert run("a4", "b1") == ["b1"]  # full: one old entry goes, not a4 nor b1
    assert run("b1", "a4", "b2") == ["b2"]
    assert run("b1", "a4", "b2") == []  # what a command needs is found every time
    fresh()
    assert len(regexcache._load()) == 4


def test_the_cache_can_be_turned_off(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITSTRATA_REGEX_CACHE", "off")
    assert regexcache.compile_pattern(r"a+b").fullmatch("aab")
    regexcache.save()
    assert not cache_home.exists()


# a process that compiles every pattern of the package made through the cache, and says how
# many it did not find in the file
_EVERY_PATTERN = """
from gitstrata.store import regexcache
from gitstrata.serve import firewall, router
from gitstrata.stages import intent, memory_sources, patch, spanrules, spans
from gitstrata.stages.chunking import imports, rules, source, structural, treesitter
from gitstrata.stages.chunking import treesitter_clike
from gitstrata.store import filekind, redact, secret_formats, tokenizer
firewall.warm()
print(len(regexcache._entries))
regexcache.save()
"""


def test_another_hash_seed_compiles_nothing_new(cache_home: Path) -> None:
    """A pattern's text is its key in the file: one built from a set in the set's order was a
    new key in every process (it compiled again, and the whole file was written again)."""
    import subprocess
    import sys

    made = []
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "XDG_CACHE_HOME": str(cache_home.parent)}
        done = subprocess.run(
            [sys.executable, "-c", _EVERY_PATTERN], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        made.append(int(done.stdout.split()[-1]))
    assert made[0] > 250
    assert made[1:] == [0, 0]
