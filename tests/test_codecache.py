"""The cache of code compiled from generated text: what it hands `dataclasses` and `typing` is
what they would have compiled, a bad or missing file only costs time, and only the command line
installs it."""

from __future__ import annotations

import ast
import json
import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gitstrata.store import codecache, usercache


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("GITSTRATA_CACHE", raising=False)
    fresh()
    yield tmp_path / "gitstrata"
    fresh()


def fresh() -> None:
    """This process forgets what it compiled and read, as a new process would."""
    codecache._stored = None
    codecache._made.clear()
    codecache._used.clear()


TEXTS = [
    ("exec", "def __create_fn__(_type_x):\n def __init__(self, a:_type_x):\n  self.a=a\n"
     " return __init__"),
    ("exec", "def __create_fn__():\n def __repr__(self):\n  return 'x'\n return __repr__"),
    ("eval", "list[str] | None"),
    ("eval", "dict[str, 'Forward']"),
    ("eval", "Ünïcode"),
]  # fmt: skip


def plain(text: str, mode: str):
    return compile(text, "<string>", mode, 0, True)


def test_code_read_back_is_what_compiling_makes(cache_home: Path) -> None:
    for mode, text in TEXTS:
        assert codecache.compiled(text, mode) == plain(text, mode)
    codecache.save()
    fresh()
    for mode, text in TEXTS:
        assert codecache.compiled(text, mode) == plain(text, mode)
    assert not codecache._made  # all of it came from the file
    assert len(codecache._used) == len(TEXTS)
    # a text in another mode is another entry
    assert codecache.compiled("x", "exec") == plain("x", "exec")
    assert len(codecache._made) == 1


def test_compiling_keeps_the_builtins_meaning_for_every_other_call(cache_home: Path) -> None:
    with pytest.raises(SyntaxError):
        codecache._compile("x +", "<string>", "eval")
    assert codecache._compile("a", "file.py", "eval").co_filename == "file.py"
    tree = codecache._compile("a = 1", "<string>", "exec", ast.PyCF_ONLY_AST)
    assert isinstance(tree, ast.Module)
    # this module's own future import is not inherited: the annotation is evaluated
    space: dict = {}
    codecache._exec("def f() -> int: pass", space)
    assert space["f"].__annotations__ == {"return": int}
    code = codecache._compile("def g() -> int: pass", "<string>", "exec")
    exec(code, space)
    assert space["g"].__annotations__ == {"return": int}


@pytest.mark.parametrize("damage", ["garbage", "not-code", "other-file", "cut-short"])
def test_a_damaged_file_falls_back_to_compiling(cache_home: Path, damage: str) -> None:
    mode, text = TEXTS[0]
    codecache.compiled(text, mode)
    codecache.save()
    (path,) = cache_home.iterdir()
    key = next(iter(usercache.load(path, codecache.MAGIC)))
    if damage == "garbage":
        data = b"not a cache file"
    elif damage == "not-code":
        data = usercache.pack(codecache.MAGIC, {key: marshal.dumps(("a", 1))})
    elif damage == "other-file":
        made = compile(text, "elsewhere.py", mode)
        data = usercache.pack(codecache.MAGIC, {key: marshal.dumps(made)})
    else:
        data = usercache.pack(codecache.MAGIC, {key: marshal.dumps(plain(text, mode))})[:-9]
    path.write_bytes(data)
    fresh()
    assert codecache.compiled(text, mode) == plain(text, mode)
    codecache.save()  # the damaged file is replaced by a sound one
    fresh()
    assert codecache.compiled(text, mode) == plain(text, mode)
    assert not codecache._made


def test_the_file_is_private_and_keeps_what_was_used_last(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(codecache, "MAX_ENTRIES", 3)

    def run(*names: str) -> list[str]:
        """Compile `names` in a fresh process; the ones not found in the file."""
        fresh()
        for name in names:
            codecache.compiled(name, "eval")
        missed = [code.co_names[0] for code in codecache._made.values()]
        codecache.save()
        return missed

    assert run("a1", "a2", "a3") == ["a1", "a2", "a3"]
    assert run("a3", "b1") == ["b1"]
    assert run("b1", "a3", "b2") == ["b2"]
    assert run("b1", "a3", "b2") == []
    (path,) = cache_home.iterdir()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert oct(cache_home.stat().st_mode & 0o777) == "0o700"


def test_the_cache_can_be_turned_off(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITSTRATA_CACHE", "off")
    assert codecache.install() is False
    import dataclasses
    import typing

    assert "exec" not in vars(dataclasses) and "compile" not in vars(typing)


# dataclasses and pydantic models of every kind, made with the cache installed or not; what
# each does is printed, then what the cache compiled and found
_CLASSES = """
import sys
from gitstrata.store import codecache
if sys.argv[1] == "on":
    assert codecache.install()
import dataclasses
from dataclasses import InitVar, dataclass, field
from typing import ClassVar, Optional
import pydantic

@dataclass(frozen=True, slots=True, order=True)
class Point:
    x: int
    y: int = 0
    tags: tuple = ()

@dataclass(kw_only=True, eq=False)
class Box:
    items: list = field(default_factory=list)
    scale: InitVar[int] = 1
    seen: ClassVar[int] = 0
    def __post_init__(self, scale):
        self.items = self.items * scale

@dataclass(unsafe_hash=True)
class Node:
    name: str
    parent: "Optional[Node]" = None

class Model(pydantic.BaseModel):
    name: str
    points: list["Point"] = []
    child: "Optional[Model]" = None

Model.model_rebuild()
p = Point(1, 2)
print(repr(p), p == Point(1, 2), p < Point(1, 3), hash(p) == hash(Point(1, 2)))
try:
    p.x = 3
except dataclasses.FrozenInstanceError as e:
    print("frozen", type(e).__name__)
print(dataclasses.replace(p, y=5), [f.name for f in dataclasses.fields(Point)])
b = Box(items=[1], scale=3)
print(b.items, b == Box(items=[1, 1, 1]), repr(b))
try:
    Box([1])
except TypeError as e:
    print("kw_only", type(e).__name__)
n = Node("a", Node("b"))
print(repr(n), hash(n) == hash(Node("a", Node("b"))))
m = Model(name="m", points=[p], child={"name": "c"})
print(m.model_dump_json())
try:
    Model(name=3)
except pydantic.ValidationError as e:
    print("invalid", e.error_count())
print("compiled", len(codecache._made), "found", len(codecache._used), file=sys.stderr)
codecache.save()
"""


def test_classes_made_through_the_cache_behave_as_without_it(cache_home: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home.parent)}

    def run(how: str) -> tuple[str, list[int]]:
        done = subprocess.run(
            [sys.executable, "-c", _CLASSES, how], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        counts = done.stderr.split()
        return done.stdout, [int(counts[1]), int(counts[3])]

    without, _ = run("off")
    first, (compiled, found) = run("on")
    assert compiled > 40 and found == 0
    second, (compiled_again, found_again) = run("on")
    assert compiled_again == 0 and found_again == compiled
    assert without == first == second
    assert "frozen FrozenInstanceError" in without and "kw_only TypeError" in without


def test_the_command_line_keeps_its_compiled_code(git_repo, tmp_path: Path) -> None:
    """A one-shot answer reads the code an earlier one compiled, and answers the same."""
    git_repo.commit("init", {"a.py": "def f():\n    return 1\n"})
    git_repo.commit("fix f", {"a.py": "def f():\n    return 2\n"})
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    repo = ["-C", str(git_repo.path)]
    subprocess.run(
        [sys.executable, "-m", "gitstrata", *repo, "index", "--quiet"], check=True, env=env
    )
    args = [sys.executable, "-m", "gitstrata", *repo, "preflight", "a.py", "-s", "f", "--json"]
    answers = []
    for _ in range(2):
        done = subprocess.run(args, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        answers.append(json.loads(re.sub(r'"latency_ms": [0-9.]+', '"latency_ms": 0', done.stdout)))
    assert answers[0] == answers[1] and answers[0]["found"]
    (path,) = (tmp_path / "gitstrata").glob("code-*.marshal")
    assert len(usercache.load(path, codecache.MAGIC)) > 300
