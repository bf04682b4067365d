"""The derived attribution equals the full-parse reference on real repositories.

Each test builds a repository whose files (Python, Go, TypeScript, JavaScript, Rust, Java) go
through random but reproducible edits: lines changed inside bodies (blocks, closures, callbacks,
strings and comments holding brackets, nested declarations), functions added, removed, renamed
and moved, decorators and overloads, module-level statements, and files renamed. The capsule
stage's tables must be equal whether file versions are mostly derived across the diff or every
version is parsed whole (`full_parse`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from gitstrata.pipeline.gitio import Git
from gitstrata.pipeline.history import extract_all, rev_list
from gitstrata.stages import capsule
from gitstrata.store.config import HistoryConfig

# per language: indentation unit, body statements (lists of lines, relative indentation in
# units), module-level blocks, and the templates of declarations
BODY = {
    "py": [
        ["value = x + 1"],
        ["if x > 1:", ">x -= 1"],
        ["for item in range(x):", ">x += item", "else:", ">x = 0"],
        ['note = "{ not a brace ("'],
        ["# a comment with def and class"],
        ['doc = """inline"""'],
        ["items = [", ">1,", ">(2),", "]"],
        ["result = {", ">'a': 1,", "}"],
        ["def inner(y):", ">return y"],
        ["class Local:", ">pass"],
        ["lam = lambda y: y + 1"],
        ['text = """', "def not_real():", '"""'],
        ["total = (x +", ">1)"],
    ],
    "go": [
        ["x++"],
        ["if x > 1 {", ">x--", "} else {", ">x = 0", "}"],
        ['s := "{ not a brace"', "_ = s"],
        ["// a comment with { and func"],
        ["go func() {", ">x++", "}()"],
        ["type local struct{ A int }", "_ = local{}"],
        ["raw := `raw { string`", "_ = raw"],
        ["/* block", "comment { */"],
        ["for i := 0; i < x; i++ {", ">x += i", "}"],
        ["f := func(y int) int { return y }", "_ = f"],
    ],
    "ts": [
        ["x += 1;"],
        ["if (x > 1) {", ">x -= 1;", "} else {", ">x = 0;", "}"],
        ["const s = `tpl ${x} {`;"],
        ["// a comment with { and function"],
        ["[1, 2].forEach((v) => {", ">x += v;", "});"],
        ["const inner = (y: number) => y + 1;"],
        ["function nested(y: number) {", ">return y;", "}"],
        ["const re = /[{]/;"],
        ["/**", " * doc { with brace", " */"],
        ["const obj = { a: 1, b: [2, 3] };"],
        ["x = [1, 2].map(function (v) { return v; }).length;"],
    ],
    "rs": [
        ["let y = x + 1;"],
        ["if x > 1 {", ">return x - 1;", "}"],
        ['let s = "{ not a brace";'],
        ["// a comment with { and fn"],
        ["let c = |v: i32| { v + 1 };"],
        ["fn nested(v: i32) -> i32 {", ">v", "}"],
        ['let r = r"raw {";'],
        ["#[allow(unused)]", "let z = 'a';"],
    ],
    "java": [
        ["x += 1;"],
        ["if (x > 1) {", ">x -= 1;", "}"],
        ['String s = "{ not a brace";'],
        ["// a comment with { and class"],
        ["Runnable r = () -> {", ">System.out.println(x);", "};"],
        ["Runnable a = new Runnable() {", ">public void run() {}", "};"],
        ["class Local {}"],
    ],
}
UNIT = {"py": "    ", "go": "\t", "ts": "  ", "js": "  ", "rs": "    ", "java": "    "}
# `this.m = function` inside a function is a symbol for the structural chunker only, which
# parses the versions that hold a syntax error (the `broken` module-level line below)
BODY["js"] = (
    BODY["ts"][:6] + BODY["ts"][7:] + [["this.helper = function (v) {", ">return v;", "};"]]
)
TOP = {
    "py": ["import os", "LIMIT = 10", "if os.environ:\n    FLAG = 1", "# section"],
    "go": [
        'import "fmt"',
        "var limit = 10",
        "type (\n\tAlias int\n\tOther string\n)",
        "var (\n\tx = 1\n)",
        "// section",
    ],
    "ts": [
        "import { a } from './a';",
        "const LIMIT = 10;",
        "test('title', async (t) => {\n  t.pass();\n});",
        "type Shape = { a: number };",
        "// section",
    ],
    "js": [
        "const path = require('path');",
        "module.exports.helper = function (x) {\n  return x;\n};",
        "defineGetter(req, 'proto', function () {\n  return 1;\n});",
        "describe('x', function () {\n  it('y', () => {});\n});",
        "var broken = (;",
        "// section",
    ],
    "rs": ["use std::fmt;", "const LIMIT: i32 = 10;", "#[derive(Debug)]\nstruct Pair(i32);"],
    "java": ["private int limit = 10;", "// section"],
}


@dataclass
class Decl:
    kind: str
    name: str
    body: list[list[str]] = field(default_factory=list)
    decorated: bool = False


def _body(lines: list[list[str]], indent: str, unit: str) -> list[str]:
    out = []
    for stmt in lines:
        for line in stmt:
            deeper = line.startswith(">")
            out.append(indent + (unit if deeper else "") + line.lstrip(">"))
    return out


def render_decl(lang: str, d: Decl) -> str:
    u = UNIT[lang]
    if lang == "py":
        if d.kind == "class":
            head = [f"class {d.name.title()}:", f"{u}def {d.name}(self, x):"]
            return "\n".join(head + _body(d.body, u * 2, u) + [f"{u * 2}return x"])
        head = ["@cache"] if d.decorated else []
        if d.kind == "overloaded":
            for t in ("int", "str"):
                head += ["@overload", f"def {d.name}(x: {t}) -> {t}: ..."]
        head.append(f"def {d.name}(x):")
        return "\n".join(head + _body(d.body, u, u) + [f"{u}return x"])
    if lang == "go":
        if d.kind == "class":
            return f"type {d.name.title()} struct {{\n\tA int\n}}"
        recv = "(r *Router) " if d.kind == "method" else ""
        head = [f"func {recv}{d.name}(x int) int {{"]
        return "\n".join(head + _body(d.body, u, u) + [f"{u}return x", "}"])
    if lang in ("ts", "js"):
        typed = ": number" if lang == "ts" else ""
        if d.kind == "class":
            head = ["@sealed"] if d.decorated and lang == "ts" else []
            head += [f"class {d.name.title()} {{", f"{u}{d.name}(x{typed}) {{"]
            return "\n".join(head + _body(d.body, u * 2, u) + [f"{u * 2}return x;", f"{u}}}", "}"])
        if d.kind == "arrow":
            head = [f"const {d.name} = (x{typed}) => {{"]
            return "\n".join(head + _body(d.body, u, u) + [f"{u}return x;", "};"])
        head = [f"function {d.name}(x{typed}) {{"]
        return "\n".join(head + _body(d.body, u, u) + [f"{u}return x;", "}"])
    if lang == "rs":
        if d.kind == "class":
            head = ["impl Router {", f"{u}pub fn {d.name}(&self, x: i32) -> i32 {{"]
            return "\n".join(head + _body(d.body, u * 2, u) + [f"{u * 2}x", f"{u}}}", "}"])
        head = ["#[inline]"] if d.decorated else []
        head.append(f"pub fn {d.name}(x: i32) -> i32 {{")
        return "\n".join(head + _body(d.body, u, u) + [f"{u}x", "}"])
    head = [f"{u}@Override"] if d.decorated else []
    head.append(f"{u}int {d.name}(int x) {{")
    return "\n".join(head + _body(d.body, u * 2, u) + [f"{u * 2}return x;", f"{u}}}"])


KINDS = {
    "py": ["function", "class", "overloaded"],
    "go": ["function", "method", "class"],
    "ts": ["function", "class", "arrow"],
    "js": ["function", "class", "arrow"],
    "rs": ["function", "class"],
    "java": ["function"],
}
HEADER = {
    "py": "from functools import cache\nfrom typing import overload",
    "go": "package main",
    "ts": "",
    "js": "",
    "rs": "",
    "java": "",
}


class SourceFile:
    def __init__(self, lang: str, rng: random.Random, serial: list[int]) -> None:
        self.lang = lang
        self.rng = rng
        self.serial = serial
        self.items: list[Decl | str] = [self.new_decl() for _ in range(rng.randint(2, 4))]

    def new_decl(self) -> Decl:
        self.serial[0] += 1
        kind = self.rng.choice(KINDS[self.lang])
        body = [self.rng.choice(BODY[self.lang]) for _ in range(self.rng.randint(1, 3))]
        return Decl(kind, f"fn{self.serial[0]}", body, decorated=self.rng.random() < 0.2)

    def render(self) -> str:
        parts = [HEADER[self.lang]] if HEADER[self.lang] else []
        for item in self.items:
            parts.append(item if isinstance(item, str) else render_decl(self.lang, item))
        text = "\n\n".join(parts) + "\n"
        if self.lang == "java":
            inner = "\n\n".join(p for p in parts)
            text = "public class Main {\n" + inner + "\n}\n"
        return text

    def edit(self) -> None:
        rng, items = self.rng, self.items
        decls = [i for i, it in enumerate(items) if isinstance(it, Decl)]
        op = rng.choice(["body"] * 6 + ["add", "remove", "rename", "move", "top", "decorate"])
        if op == "body" and decls:
            d = items[rng.choice(decls)]
            assert isinstance(d, Decl)
            at = rng.randint(0, len(d.body))
            choice = rng.random()
            if choice < 0.4 and d.body:
                d.body[min(at, len(d.body) - 1)] = rng.choice(BODY[self.lang])
            elif choice < 0.7 or not d.body:
                d.body.insert(at, rng.choice(BODY[self.lang]))
            else:
                d.body.pop(min(at, len(d.body) - 1))
        elif op == "add" or not decls:
            items.insert(rng.randint(0, len(items)), self.new_decl())
        elif op == "remove" and len(decls) > 1:
            items.pop(rng.choice(decls))
        elif op == "rename":
            d = items[rng.choice(decls)]
            assert isinstance(d, Decl)
            self.serial[0] += 1
            d.name = f"renamed{self.serial[0]}"
        elif op == "move":
            item = items.pop(rng.choice(decls))
            items.insert(rng.randint(0, len(items)), item)
        elif op == "top":
            tops = [i for i, it in enumerate(items) if isinstance(it, str)]
            if tops and rng.random() < 0.4:
                items.pop(rng.choice(tops))
            else:
                items.insert(rng.randint(0, len(items)), rng.choice(TOP[self.lang]))
        else:
            d = items[rng.choice(decls)]
            assert isinstance(d, Decl)
            d.decorated = not d.decorated


EXT = {"py": "py", "go": "go", "ts": "ts", "js": "js", "rs": "rs", "java": "java"}


def build_history(repo, seed: int, commits: int) -> None:
    rng = random.Random(seed)
    serial = [0]
    files = {
        f"src/{lang}_{k}.{EXT[lang]}": SourceFile(lang, rng, serial) for lang in EXT for k in (0, 1)
    }
    repo.commit("feat: initial", {p: f.render() for p, f in files.items()})
    for n in range(commits):
        changed = {}
        for path in rng.sample(sorted(files), rng.randint(1, 3)):
            f = files[path]
            for _ in range(rng.randint(1, 3)):
                f.edit()
            changed[path] = f.render()
        if rng.random() < 0.05:
            old = rng.choice(sorted(changed))
            new = old.replace(".", f"_v{n}.")
            repo.git("mv", old, new)
            files[new] = files.pop(old)
            changed[new] = changed.pop(old)
        repo.commit(f"change {n}", changed, allow_empty=True)


def attribution(repo, *, full_parse: bool):
    git = Git(repo.path)
    shas = rev_list(git, git.require_head())
    cs, ts, stats = extract_all(git, shas, HistoryConfig(), workers=1, full_parse=full_parse)
    commits, touches = capsule.finalize(cs, ts)
    return commits, touches, stats


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_derived_attribution_equals_full_parse(make_repo, seed):
    repo = make_repo(f"identity{seed}")
    build_history(repo, seed, commits=70)
    fast_c, fast_t, fast = attribution(repo, full_parse=False)
    ref_c, ref_t, ref = attribution(repo, full_parse=True)
    assert ref["derived_versions"] == ref["spliced_versions"] == 0
    # the fast path really derives: most versions are never parsed whole
    assert fast["derived_versions"] + fast["spliced_versions"] > fast["parsed_versions"]
    assert fast_t.num_rows > 300
    assert fast_c.equals(ref_c)
    assert fast_t.to_pylist() == ref_t.to_pylist()


def build_merged_history(repo, seed: int, rounds: int) -> None:
    """Side branches that edit the same files as the main line, each merged back keeping the
    main line's tree: walked from the newest commit, a side branch's last version of a file is
    the old side of no diff, and neither is the version before it when the side branch changed
    the file twice, so its spans come from another version of the file (`_near`)."""
    import copy

    rng = random.Random(seed)
    serial = [0]
    files = {
        f"src/{lang}_0.{EXT[lang]}": SourceFile(lang, rng, serial) for lang in ("py", "ts", "rs")
    }
    for f in files.values():  # long enough that two branches' edits leave most lines alike
        f.items.extend(f.new_decl() for _ in range(8))
    repo.commit("feat: initial", {p: f.render() for p, f in files.items()})
    for n in range(rounds):
        shared = rng.sample(sorted(files), rng.randint(1, 2))
        side = copy.deepcopy(files)
        for f in side.values():
            f.rng = random.Random(rng.random())  # its own edits, not the main line's
        repo.git("checkout", "-q", "-b", f"side{n}")
        for k in range(rng.randint(2, 3)):
            for path in shared:
                side[path].edit()
            repo.commit(f"side {n}.{k}", {p: side[p].render() for p in shared}, allow_empty=True)
        repo.git("checkout", "-q", "main")
        for k in range(rng.randint(1, 2)):
            for path in shared:
                files[path].edit()
            repo.commit(f"main {n}.{k}", {p: files[p].render() for p in shared}, allow_empty=True)
        repo.git("merge", "-q", "--no-ff", "-s", "ours", "-m", f"merge side{n}", f"side{n}")


@pytest.mark.parametrize("seed", [4, 5])
def test_side_branch_versions_equal_full_parse(make_repo, seed):
    repo = make_repo(f"merged{seed}")
    build_merged_history(repo, seed, rounds=12)
    fast_c, fast_t, fast = attribution(repo, full_parse=False)
    ref_c, ref_t, ref = attribution(repo, full_parse=True)
    # side-branch versions were made from other versions of their files, not parsed whole
    assert fast["near_versions"] >= 8
    assert fast_t.num_rows > 100
    assert fast_c.equals(ref_c)
    assert fast_t.to_pylist() == ref_t.to_pylist()


def test_python_texts_parsed_again_are_recalled_and_equal_full_parse(make_repo):
    """A method edited back and forth (each edit adds or drops a nested function, so its
    region is parsed) while the file's other lines change: the second time the method's text
    is parsed its symbols are recalled, and the tables equal the full-parse reference."""
    repo = make_repo("recalled")
    methods = "".join(
        f"    def m{i}(self, x):\n        y = x + {i}\n        return y\n\n" for i in range(12)
    )
    plain = "class Big:\n" + methods
    nested = plain.replace(
        "    def m5(self, x):\n        y = x + 5\n",
        "    def m5(self, x):\n        def helper(v):\n            return v\n\n"
        "        y = helper(x) + 5\n",
    )
    assert nested != plain
    repo.commit("feat: initial", {"src/big.py": plain})
    for n in range(6):  # another method changes too: no whole version recurs, m5's text does
        text = (nested if n % 2 == 0 else plain).replace("y = x + 0\n", f"y = x + {100 + n}\n")
        repo.commit(f"edit {n}", {"src/big.py": text})
    fast_c, fast_t, fast = attribution(repo, full_parse=False)
    ref_c, ref_t, ref = attribution(repo, full_parse=True)
    assert fast["recalled_texts"] > 0 and ref["recalled_texts"] == 0
    assert fast_c.equals(ref_c)
    assert fast_t.to_pylist() == ref_t.to_pylist()
