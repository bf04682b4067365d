"""Capsules and per-symbol touches on real repositories; intent; span derivation vs parsing."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from gitstrata.pipeline.gitio import Git
from gitstrata.pipeline.history import extract_all, rev_list
from gitstrata.stages import capsule, spans
from gitstrata.stages.chunking import Source, SymbolIndex, parse_source, treesitter
from gitstrata.stages.intent import classify, tickets
from gitstrata.stages.patch import Hunk
from gitstrata.stages.spanregions import STATEMENT_GIVE_UP, StatementHint
from gitstrata.store.config import HistoryConfig
from gitstrata.store.ids import symbol_id
from gitstrata.store.vocabulary import INTENTS

PAY_V1 = '''"""Payments."""
import uuid

RETRIES = 3


class Gateway:
    def charge(self, order_id, key):
        return order_id


def charge_with_retry(gw, order_id):
    for _ in range(RETRIES):
        return gw.charge(order_id, str(uuid.uuid4()))


def unused():
    return None
'''

PAY_V2 = PAY_V1.replace(
    "    for _ in range(RETRIES):\n        return gw.charge(order_id, str(uuid.uuid4()))",
    '    key = f"{order_id}:retry"\n    for _ in range(RETRIES):\n        return gw.charge(order_id, key)',
)
PAY_V3 = PAY_V2.replace("        return order_id", '        return f"{order_id}:{key}"')
PAY_V4 = PAY_V3.replace("\n\ndef unused():\n    return None\n", "\n")


def history(repo, **cfg):
    git = Git(repo.path)
    shas = rev_list(git, git.require_head())
    cs, ts, stats = extract_all(git, shas, HistoryConfig(**cfg), workers=1)
    commits, touches = capsule.finalize(cs, ts)
    return commits, touches, stats


def rows(touches, *cols):
    return [tuple(r[c] for c in cols) for r in touches.to_pylist()]


@pytest.fixture
def pay_repo(git_repo):
    r = git_repo
    shas = [
        r.commit("feat: payments", {"payments.py": PAY_V1, "README.md": "# pay\n"}),
        r.commit("fix(payments): reuse one idempotency key (INC-2407)", {"payments.py": PAY_V2}),
    ]
    r.git("mv", "payments.py", "billing.py")
    r.write("billing.py", PAY_V3)
    shas.append(r.commit("refactor: move to billing, key in charge"))
    shas.append(r.commit("chore: drop unused", {"billing.py": PAY_V4}))
    shas.append(
        r.commit("docs: readme", {"README.md": "# pay\n\nUsage.\n", "logo.png": b"\x89PNG\0\1"})
    )
    shas.append(r.commit("nothing", allow_empty=True))
    return r, shas


def test_touches_follow_symbols_and_renames(pay_repo):
    r, shas = pay_repo
    commits, touches, _ = history(r)
    assert commits["sha"].to_pylist() == shas
    assert commits["intent"].to_pylist() == [
        "feature",
        "bugfix",
        "refactor",
        "chore",
        "docs",
        "chore",
    ]
    assert commits["tickets"].to_pylist()[1] == ["INC-2407"]
    assert commits["files"].to_pylist() == [2, 1, 1, 1, 2, 0]
    got = rows(
        touches, "sha", "path", "old_path", "status", "head_path", "qualname", "added", "removed"
    )
    by_sha = {}
    for row in got:
        by_sha.setdefault(row[0], []).append(row[1:])
    assert by_sha[shas[1]] == [
        ("payments.py", None, "M", "billing.py", "charge_with_retry", 2, 1),
    ]
    assert by_sha[shas[2]] == [
        ("billing.py", "payments.py", "R", "billing.py", "Gateway.charge", 1, 1)
    ]
    assert by_sha[shas[3]] == [
        ("billing.py", None, "M", "billing.py", "<module>", 0, 1),
        ("billing.py", None, "M", "billing.py", "unused", 0, 2),
    ]
    assert by_sha[shas[4]] == [
        ("README.md", None, "M", "README.md", "<module>", 2, 0),
        ("logo.png", None, "A", "logo.png", None, 0, 0),
    ]
    first = {row[4]: row[5:] for row in by_sha[shas[0]] if row[0] == "payments.py"}
    assert first == {
        "<module>": (10, 0),
        "Gateway": (1, 0),
        "Gateway.charge": (2, 0),
        "charge_with_retry": (3, 0),
        "unused": (2, 0),
    }
    # every touch of the payments file joins the HEAD symbol under its new path
    pay = [r_ for r_ in touches.to_pylist() if r_["head_path"] == "billing.py" and r_["qualname"]]
    assert {r_["symbol_id"] for r_ in pay if r_["qualname"] == "charge_with_retry"} == {
        symbol_id("billing.py", "charge_with_retry")
    }
    fix = next(r_ for r_ in pay if r_["sha"] == shas[1])
    assert fix["excerpt"] == (
        '+    key = f"{order_id}:retry"\n-        return gw.charge(order_id, str(uuid.uuid4()))\n'
        "+        return gw.charge(order_id, key)"
    )
    binary = next(r_ for r_ in touches.to_pylist() if r_["path"] == "logo.png")
    assert binary["binary"] is True and binary["symbol_id"] is None
    assert commits["excerpt"][1].as_py().startswith("M payments.py\n+    key = ")


def test_rename_cycle_resolves_to_head_paths(git_repo):
    r = git_repo
    a = r.commit("one", {"a.py": "def f():\n    return 1\n"})
    r.git("mv", "a.py", "b.py")
    b = r.commit("a to b")
    r.commit("edit b", {"b.py": "def f():\n    return 2\n"})
    r.git("mv", "b.py", "a.py")
    r.commit("b back to a")
    r.commit("new b", {"b.py": "x = 1\n"})
    _, touches, _ = history(r)
    heads = {(t["sha"], t["path"]): t["head_path"] for t in touches.to_pylist()}
    assert heads[(a, "a.py")] == "a.py"
    assert heads[(b, "b.py")] == "a.py"
    new_b = [t for t in touches.to_pylist() if t["head_path"] == "b.py"]
    assert [t["qualname"] for t in new_b] == ["<module>"]


def test_caps_bound_text_not_counts(git_repo):
    r = git_repo
    r.commit("big", {"big.py": "".join(f"x{i} = {i}\n" for i in range(3000))})
    commits, touches, _ = history(
        r, excerpt_chars=100, symbol_excerpt_chars=50, patch_text_bytes=500
    )
    row = touches.to_pylist()[0]
    assert (row["added"], row["qualname"]) == (3000, "<module>")
    assert len(row["excerpt"]) <= 50 and len(commits["excerpt"][0].as_py()) <= 100
    assert commits["added"][0].as_py() == 3000


def test_excerpts_redacted_in_many_batches_equal_one_batch(git_repo, monkeypatch):
    # excerpts wait to be redacted as a batch, flushed every `_BATCH_CHARS`: where the batches
    # are cut must not change a stored excerpt, with secrets among them or not
    r = git_repo
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    for i in range(24):
        body = f"def f{i}():\n    return {i}\n"
        if i % 5 == 0:
            body += f'TOKEN = "{secret}"\npassword = "hunter2hunter{i}"\n'
        r.commit(f"change {i}", {f"m{i % 4}.py": body})
    one = history(r)
    monkeypatch.setattr(capsule, "_BATCH_CHARS", 1)  # every excerpt a batch of its own
    many = history(r)
    for a, b in zip(one[:2], many[:2], strict=True):
        assert a.equals(b)
    excerpts = [e for e in one[1].column("excerpt").to_pylist() if e]
    assert excerpts and not any(secret in e or "hunter2hunter" in e for e in excerpts)
    assert any("[REDACTED:" in e for e in excerpts)


def test_bulk_and_symbol_max_files(git_repo):
    r = git_repo
    r.commit("many", {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(5)})
    commits, touches, _ = history(r, bulk_files=4, symbol_max_files=3)
    assert commits["bulk"].to_pylist() == [True]
    assert set(touches["qualname"].to_pylist()) == {None}
    assert sum(touches["added"].to_pylist()) == 10


def test_max_commits_keeps_the_newest(pay_repo):
    r, shas = pay_repo
    git = Git(r.path)
    cs, ts, _ = extract_all(git, rev_list(git, r.head()), HistoryConfig(), workers=1)
    commits, touches = capsule.finalize(cs, ts, max_commits=2)
    assert commits["sha"].to_pylist() == shas[-2:]
    assert set(touches["sha"].to_pylist()) == {shas[-2]}


# ---------------------------------------------------------------- spans


CORPUS = [
    PAY_V1,
    '''import os


@decorator
def top(a, b):
    """Doc with def inside: def fake():"""
    if a:
        return b
    # comment

    return a


class Outer:
    """Class."""

    x = 1

    @property
    def prop(self):
        return self.x

    class Inner:
        def deep(self):
            def local():
                return 1
            return local()

    def after(self):
        data = {
            "k": [1, 2],
        }
        return data


if os.environ:
    def conditional():
        return 2


def last():
    s = """multi
line"""
    return s
''',
    '''from typing import overload


class Service:
    """Doc."""

    limit = 3

    @overload
    def get(self, key: int) -> int: ...
    @overload
    def get(self, key: str) -> str: ...
    def get(self, key):
        return key

    def put(self, key, value):
        text = """
at column zero
"""
        return text

    @staticmethod
    def helper():
        def inner():
            return 1

        return inner()

    class Nested:
        def deep(self):
            return 2

    def last(self):
        return None


def tail():
    return 0
''',
]

# statements inserted at the indentation of the line they go before: plain ones (derivable)
# and ones that add, end or hide symbols (must be spliced or parsed)
TEMPLATES = [
    [""],
    ["# note"],
    ["x = 1"],
    ["value = [1, (2)]"],
    ["call(", "    1,", ")"],
    ["if y:", "    w = 4"],
    ["def added():", "    return 0"],
    ["@wrap", "def wrapped():", "    pass"],
    ["class Added:", "    def m(self):", "        return 1"],
    ['s = """', "def not_real():", '"""'],
    ["return 5"],
    # "!": a line at column 0 wherever it goes
    ["!# at column zero"],
    ['s = """', "!at column zero", '"""'],
    ["!def at_zero():", "!    return 1"],
    ["@overload", "def get(self, key: bytes) -> bytes: ..."],
]


def _indent_at(lines: list[str], at: int) -> str:
    for line in lines[at:] + lines[:at][::-1]:
        if line.strip():
            return line[: len(line) - len(line.lstrip())]
    return ""


def _edited(text: str, edits) -> tuple[list[str], list[str], str]:
    """(old lines, new lines, new text) after replacing `drop` lines at `at` by a template, each
    indented like its neighbours (one level deeper when the edit's fourth item is true)."""
    old = text.split("\n")[:-1]
    new = list(old)
    for at, drop, template, *deeper in edits:
        at = min(at, len(new))
        pad = _indent_at(new, at) + ("    " if deeper and deeper[0] else "")
        new[at : at + drop] = [
            t[1:] if t.startswith("!") else pad + t if t else t for t in template
        ]
    return old, new, "\n".join(new) + "\n"


def _hunks(old: list[str], new: list[str]) -> list[Hunk]:
    out = []
    sm = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        body = "".join(f"-{line}\n" for line in old[i1:i2]) + "".join(
            f"+{line}\n" for line in new[j1:j2]
        )
        out.append(
            Hunk(
                i1 + 1 if i2 > i1 else i1,
                i2 - i1,
                j1 + 1 if j2 > j1 else j1,
                j2 - j1,
                body.encode(),
            )
        )
    return out


def _spans(text: str) -> tuple[spans.Spans, str]:
    parsed = parse_source("m.py", text.encode())
    clean = parsed.parser == "ast"
    return spans.from_symbols(parsed.symbols, text.encode(), "python", clean=clean), parsed.parser


_SUFFIX = {"typescript": "ts", "javascript": "js", "rust": "rs"}


def _ts_spans(text: str, language: str) -> tuple[spans.Spans, str]:
    """The spans of a tree-sitter language's file, clean when tree-sitter parsed it without
    errors, and the parser `parse_source` used."""
    parsed = parse_source(f"m.{_SUFFIX[language]}", text.encode())
    found = treesitter.parse_tree(Source(text.encode(), language))
    clean = found is not None and not found[1]
    return spans.from_symbols(parsed.symbols, text.encode(), language, clean=clean), parsed.parser


def _region_of(language: str, seen: list[bytes] | None = None):
    """A `splice` parse of `language` that lists the texts it was asked to parse."""

    def parse(data: bytes, region: str = "", moves=None):
        if seen is not None:
            seen.append(data)
        found = treesitter.parse_tree(Source(data, language))
        if found is None or found[1]:
            return None
        return parse_source(f"m.{_SUFFIX[language]}", data).symbols

    return parse


def _ast_symbols(data: bytes, region: str = "", moves=None):
    parsed = parse_source("m.py", data)
    return parsed.symbols if parsed.parser == "ast" else None


def _same(a: spans.Spans, b: spans.Spans) -> bool:
    return (
        a.owner.tolist() == b.owner.tolist()
        and a.starts.tolist() == b.starts.tolist()
        and a.ends.tolist() == b.ends.tolist()
        and a.qualnames == b.qualnames
        and a.kinds == b.kinds
        and a.top.tolist() == b.top.tolist()
    )


def test_owner_equals_symbol_index():
    for text in CORPUS:
        parsed = parse_source("m.py", text.encode())
        sp = spans.from_symbols(parsed.symbols, text.encode(), "python")
        index = SymbolIndex(parsed.symbols)
        n = text.count("\n")
        assert [sp.qualnames[sp.owner[i]] for i in range(1, n + 1)] == [
            index.innermost(i).qualname for i in range(1, n + 1)
        ]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.sampled_from(CORPUS),
    st.lists(
        st.tuples(st.integers(0, 60), st.integers(0, 2), st.sampled_from(TEMPLATES), st.booleans()),
        min_size=1,
        max_size=3,
    ),
)
# an overload stub at the top and another definition of its name far below, in two regions
# parsed apart: the whole file's parse folds the one into the other
@example(
    CORPUS[1],
    [
        (33, 0, ["@overload", "def get(self, key: bytes) -> bytes: ..."], False),
        (32, 2, [""], False),
        (0, 1, ["@overload", "def get(self, key: bytes) -> bytes: ..."], False),
    ],
)
@pytest.mark.slow
def test_derived_and_spliced_spans_equal_parsing(text, edits):
    old, new, new_text = _edited(text, edits)
    x, parser_x = _spans(text)
    y, parser_y = _spans(new_text)
    assume(parser_x == parser_y == "ast")
    hunks = _hunks(old, new)
    assume(hunks)
    for fwd, known, want, data in ((True, x, y, new_text), (False, y, x, text)):
        got = spans.derive(known, hunks, forward=fwd)
        if got is None:
            got = spans.splice(
                known,
                hunks,
                forward=fwd,
                data=data.encode(),
                parse=_ast_symbols,
            )
        if got is not None:
            assert _same(got, want), (fwd, hunks)


TS_SOURCE = """export function parseOrder(raw: string): Order {
  const data = JSON.parse(raw);
  if (data) {
    return data as Order;
  }
  return null;
}

export class OrderClient {
  fetch(id: string): Promise<Order> {
    const url = `/orders/${id}`;
    return fetch(url).then((r) => r.json());
  }
}
"""
TS_TEMPLATES = [
    [""],
    ["// note"],
    ["let y = 2;"],
    ["call(1,", "  2);"],
    ["if (q) {", "  w();", "}"],
    ["function added() {", "  return 0;", "}"],
    ["const f = () => 1;"],
    ["return 5;"],
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.lists(
        st.tuples(st.integers(0, 16), st.integers(0, 2), st.sampled_from(TS_TEMPLATES)),
        min_size=1,
        max_size=2,
    )
)
def test_derived_brace_spans_equal_parsing(edits):
    old, new, new_text = _edited(TS_SOURCE, edits)

    (x, px), (y, py) = _ts_spans(TS_SOURCE, "typescript"), _ts_spans(new_text, "typescript")
    assume(px == py == "tree-sitter")
    hunks = _hunks(old, new)
    assume(hunks)
    for fwd, known, want in ((True, x, y), (False, y, x)):
        got = spans.derive(known, hunks, forward=fwd)
        if got is not None:
            assert _same(got, want), (fwd, hunks)


JS_SOURCE = """var request = require('supertest');

exports.helper = function (x) {
  return x;
};

defineGetter(req, 'proto', function () {
  return 1;
});

const run = () => go()
  .then(done);

describe('app', function () {
  it('works', function (done) {
    request(app)
      .get('/')
      .expect(200, done);
  });
});
"""
JS_TEMPLATES = [
    [""],
    ["// note"],
    ["  .expect(201)"],
    [".bind(this)"],
    [".call(null);"],
    ["  .end(done)"],
    ["x = 1;"],
    ["})"],
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.lists(
        st.tuples(st.integers(0, 22), st.integers(0, 2), st.sampled_from(JS_TEMPLATES)),
        min_size=1,
        max_size=2,
    )
)
def test_derived_js_chains_equal_parsing(edits):
    """JS module-level lines that continue the statement above (`.expect(...)` chains in test
    suites), read against the known side's text: derived only when that statement is plain."""
    old, new, new_text = _edited(JS_SOURCE, edits)

    (x, px), (y, py) = _ts_spans(JS_SOURCE, "javascript"), _ts_spans(new_text, "javascript")
    assume(px == py == "tree-sitter" and x.clean and y.clean)
    hunks = _hunks(old, new)
    assume(hunks)
    for fwd, known, want, data in ((True, x, y, JS_SOURCE), (False, y, x, new_text)):
        got = spans.derive(known, hunks, forward=fwd, text=lambda d=data: d.encode())
        if got is not None:
            assert _same(got, want), (fwd, hunks)


def test_js_chain_line_derives_under_a_plain_statement():
    edited = JS_SOURCE.replace("      .expect(200, done);", "      .expect(201)\n      .end(done);")
    x, _ = _ts_spans(JS_SOURCE, "javascript")
    hunks = _hunks(JS_SOURCE.splitlines(), edited.splitlines())
    got = spans.derive(x, hunks, forward=True, text=JS_SOURCE.encode)
    assert got is not None and _same(got, _ts_spans(edited, "javascript")[0])
    # a call's function argument is a symbol until a line continues the call, and the other
    # way round: neither side derives
    plain = JS_SOURCE.replace("});\n\nconst run", "})\n\nconst run")
    chained = plain.replace("})\n\nconst run", "})\n.call(null)\n\nconst run")
    for known, other in ((plain, chained), (chained, plain)):
        x, _ = _ts_spans(known, "javascript")
        hunks = _hunks(known.splitlines(), other.splitlines())
        assert len(hunks) == 1 and hunks[0].old_count + hunks[0].new_count == 1
        assert spans.derive(x, hunks, forward=True, text=known.encode) is None


RS_SOURCE = """use std::fmt;

pub fn parse(raw: &str) -> Option<i32> {
    raw.parse().ok()
}

impl Order {
    fn total(&self) -> i32 {
        self.a + self.b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn helper() -> i32 {
        1
    }

    #[test]
    fn parses() {
        assert_eq!(parse("1"), Some(1));
    }

    #[test]
    fn rejects() {
        assert_eq!(parse("x"), None);
    }
}
"""
RS_TEMPLATES = [
    [""],
    ["// note"],
    ["let y = 2;"],
    ["fn added() -> i32 {", "    0", "}"],
    ["#[test]", "fn extra() {}"],
    ["}"],
    ["mod inner {"],
    ["struct Added;"],
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.lists(
        st.tuples(st.integers(0, 32), st.integers(0, 2), st.sampled_from(RS_TEMPLATES)),
        min_size=1,
        max_size=2,
    )
)
def test_spliced_rust_spans_equal_parsing(edits):
    old, new, new_text = _edited(RS_SOURCE, edits)
    (x, px), (y, py) = _ts_spans(RS_SOURCE, "rust"), _ts_spans(new_text, "rust")
    assume(px == py == "tree-sitter" and x.clean and y.clean)
    hunks = _hunks(old, new)
    assume(hunks)
    for fwd, known, want, data in ((True, x, y, new_text), (False, y, x, RS_SOURCE)):
        got = spans.splice(known, hunks, forward=fwd, data=data.encode(), parse=_region_of("rust"))
        if got is not None:
            assert _same(got, want), (fwd, hunks)


# classes, impl blocks and a test module with several members each: a hunk among them is
# parsed with the members around it only (`spans._member_regions`, `spans._block_regions`)
RS_MEMBERS_SOURCE = """use std::fmt;

impl Subject {
    /// Returns the path.
    fn path(&self) -> &str {
        &self.path
    }

    /// Whether a directory.
    #[cfg(not(windows))]
    fn is_dir(&self) -> bool {
        self.dir
    }

    fn is_file(&self) -> bool {
        !self.is_dir()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one() {
        assert!(true);
    }

    #[test]
    fn two() {
        assert!(false);
    }
}
"""
RS_MEMBER_TEMPLATES = [
    *RS_TEMPLATES,
    ["#[inline]"],
    ["/// doc of what follows"],
    ["#[cfg(windows)]", "fn is_dir(&self) -> bool {", "    true", "}"],
    ["#[test]"],
    ["fn three() {", "    assert!(1 == 1);", "}"],
]
TS_MEMBERS_SOURCE = """export class Client {
  constructor(private base: string) {}

  get(id: string): Promise<Item> {
    return fetch(this.base + id).then((r) => r.json());
  }

  @log()
  put(id: string, item: Item): Promise<void> {
    return send(this.base + id, item);
  }

  /**
   * Removes one.
   */
  remove(id: string): Promise<void> {
    return send(this.base + id, null);
  }
}

export function helper(): number {
  return 1;
}
"""
TS_MEMBER_TEMPLATES = [
    *TS_TEMPLATES,
    ["@log()"],
    ["/** doc */"],
    ["count(): number {", "  return 0;", "}"],
    ["}"],
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.sampled_from(
        [
            ("rust", RS_MEMBERS_SOURCE, RS_MEMBER_TEMPLATES),
            ("typescript", TS_MEMBERS_SOURCE, TS_MEMBER_TEMPLATES),
        ]
    ),
    st.lists(
        st.tuples(st.integers(0, 36), st.integers(0, 2), st.integers(0, 99)),
        min_size=1,
        max_size=3,
    ),
)
@example(  # a member and the attribute above the next one removed: that attribute is the next's
    ("rust", RS_MEMBERS_SOURCE, RS_MEMBER_TEMPLATES), [(9, 2, 1), (3, 5, 0)]
)
# a member's closing brace removed and one added in the test module: on that side the members
# below nest in the first one, although their indentation says otherwise
@example(("rust", RS_MEMBERS_SOURCE, RS_MEMBER_TEMPLATES), [(5, 2, 0), (24, 0, 5)])
# an unclosed `mod inner {` added among the members: on that side the impl block swallows the
# test module below it
@example(("rust", RS_MEMBERS_SOURCE, RS_MEMBER_TEMPLATES), [(29, 1, 21), (14, 0, 71)])
# an attribute added above the impl's first method and a change in its last one: the lines the
# last one's region is parsed under must not end on that attribute, which is the first's
@example(("rust", RS_MEMBERS_SOURCE, RS_MEMBER_TEMPLATES), [(4, 0, 47), (16, 1, 0)])
def test_spliced_member_spans_equal_parsing(case, picks):
    language, source, templates = case
    edits = [(at, drop, templates[k % len(templates)]) for at, drop, k in picks]
    old, new, new_text = _edited(source, edits)
    (x, px), (y, py) = _ts_spans(source, language), _ts_spans(new_text, language)
    assume(px == py == "tree-sitter" and x.clean and y.clean)
    hunks = _hunks(old, new)
    assume(hunks)
    for fwd, known, want, data in ((True, x, y, new_text), (False, y, x, source)):
        parse = _region_of(language)
        got = spans.splice(known, hunks, forward=fwd, data=data.encode(), parse=parse)
        if got is not None:
            assert _same(got, want), (fwd, hunks)


@pytest.mark.parametrize(
    ("language", "source", "old_line", "new_line", "others"),
    [
        ("rust", RS_MEMBERS_SOURCE, "        self.dir", "        self.dir && true", ["&self.path"]),
        (
            "rust",
            RS_MEMBERS_SOURCE,
            "        assert!(false);",
            "        assert!(!true);",
            ["assert!(true);"],
        ),
        (
            "typescript",
            TS_MEMBERS_SOURCE,
            "    return send(this.base + id, item);",
            "    return send(this.base + id, { ...item });",
            ["r.json()", "null);"],
        ),
    ],
)
def test_a_hunk_among_members_parses_only_its_members(language, source, old_line, new_line, others):
    """The texts parsed for a one-line change inside a member hold that member and not the
    other members of its block, and the result is the whole file's parse."""
    edited = source.replace(old_line, new_line)
    x, _ = _ts_spans(source, language)
    hunks = _hunks(source.splitlines(), edited.splitlines())
    seen: list[bytes] = []
    got = spans.splice(
        x, hunks, forward=True, data=edited.encode(), parse=_region_of(language, seen)
    )
    assert got is not None and _same(got, _ts_spans(edited, language)[0])
    assert seen and all(new_line.encode() in text for text in seen)
    assert not any(other.encode() in text for text in seen for other in others)


def _ts_test_module() -> str:
    """A TypeScript test file: a helper, then top-level `test(...)` calls (none a symbol), one
    with a function inside, and between them a template literal and a block comment whose lines
    look like top-level calls at column 0."""
    head = [
        "import test from 'ava';",
        "import ky from '../source/index.js';",
        "",
        "const server = {url: 'http://localhost'};",
        "",
        "function route(path: string): string {",
        "\treturn server.url + path;",
        "}",
        "",
    ]
    body = []
    for i in range(20):
        body += [
            f"test('request {i} resolves', async t => {{",
            f"\tconst response = await ky.get(route('/{i}')).json();",
            f"\tt.is(response.id, {i});",
            "\tt.pass();",
            "});",
            "",
        ]
    body[30:30] = [
        "test('a helper inside a test', async t => {",
        "\tconst makeClient = async (prefix: string) => {",
        "\t\treturn ky.create({prefix});",
        "\t};",
        "\tt.truthy(await makeClient('/api'));",
        "});",
        "",
        "const fixture = `",
        "test('inside a template', () => {",
        "function ghost() {}",
        "});",
        "test('another one', () => {});",
        "`;",
        "",
        "/*",
        "test('commented out', () => {",
        "function buried() {}",
        "});",
        "test('also commented out', () => {});",
        "*/",
        "",
        "test.serial('uses the fixture', t => {",
        "\tt.is(typeof fixture, 'string');",
        "});",
        "",
    ]
    return "\n".join(head + body) + "\n"


TS_TEST_MODULE = _ts_test_module()
# the same calls inside one `describe(...)`, as mocha and jest files hold them
TS_DESCRIBED = "\n".join(
    [
        *TS_TEST_MODULE.split("\n")[:9],
        "describe('requests', () => {",
        *("\t" + c if c else c for c in TS_TEST_MODULE.split("\n", 9)[9].splitlines()),
        "});",
        "",
    ]
)
TS_CALL_TEMPLATES = [
    [""],
    ["t.pass();"],
    ["const helper = () => {", "\treturn 2;", "};"],
    ["!test('added', t => {", "!\tt.pass();", "!});"],
    ["!test('left open', t => {"],
    ["!});"],
    ["!function added() {}"],
    ["!`"],
    ["!/*"],
    ["!*/"],
    ["!describe('block', () => {"],
    ["!@decorate()", "!export class Decorated {}"],
    ["!route('/x')", "![1, 2].forEach(route);"],
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.lists(
        st.tuples(
            st.integers(8, TS_TEST_MODULE.count("\n")),
            st.integers(0, 2),
            st.sampled_from(TS_CALL_TEMPLATES),
        ),
        min_size=1,
        max_size=3,
    )
)
# a line of the template literal and one of the comment changed: their calls at column 0 are
# text, never cuts
@example([(39, 1, ["!test('edited in the template', () => {"]), (46, 1, [""])])
# a backtick closing the template early: the calls below it become code on that side
@example([(38, 0, ["!`"])])
@pytest.mark.parametrize("source", [TS_TEST_MODULE, TS_DESCRIBED], ids=["top", "described"])
def test_spliced_call_statement_spans_equal_parsing(source, edits):
    old, new, new_text = _edited(source, edits)
    x, px = _ts_spans(source, "typescript")
    y, py = _ts_spans(new_text, "typescript")
    assume(px == py == "tree-sitter" and x.clean and y.clean)
    hunks = _hunks(old, new)
    assume(hunks)
    for fwd, known, want, data in ((True, x, y, new_text), (False, y, x, source)):
        got = spans.splice(
            known, hunks, forward=fwd, data=data.encode(), parse=_region_of("typescript")
        )
        if got is not None:
            assert _same(got, want), (fwd, hunks)


def test_a_hunk_among_top_level_calls_parses_only_its_call():
    """A one-line change inside one `test(...)` of a module of them parses that call (and not
    the file, nor the other calls), and the result is the whole file's parse; a file where no
    cut is found is no longer scanned."""
    old_line, new_line = "\tt.is(response.id, 7);", "\tt.is(response.id, 7, 'seven');"
    edited = TS_TEST_MODULE.replace(old_line, new_line)
    x, _ = _ts_spans(TS_TEST_MODULE, "typescript")
    hunks = _hunks(TS_TEST_MODULE.splitlines(), edited.splitlines())
    seen: list[bytes] = []
    got = spans.splice(
        x, hunks, forward=True, data=edited.encode(), parse=_region_of("typescript", seen)
    )
    assert got is not None and _same(got, _ts_spans(edited, "typescript")[0])
    assert seen and all(new_line.encode() in text for text in seen)
    assert not any(b"request 6 resolves" in text or b"request 8" in text for text in seen)

    # the same change with the calls inside one `describe(...)`: no cut inside it, the
    # result is still the whole file's parse
    calls = TS_TEST_MODULE.split("\n", 9)[9].splitlines()
    wrapped = "\n".join(
        ["describe('all', () => {", *("\t" + c if c else c for c in calls), "});", ""]
    )
    edited = wrapped.replace(old_line, "\t" + new_line)
    x, _ = _ts_spans(wrapped, "typescript")
    hunks = _hunks(wrapped.splitlines(), edited.splitlines())
    got = spans.splice(x, hunks, forward=True, data=edited.encode(), parse=_region_of("typescript"))
    assert got is not None and _same(got, _ts_spans(edited, "typescript")[0])

    # a long object literal holds no statement to cut at: after `STATEMENT_GIVE_UP` scans
    # that find none, none is looked for
    table = "\n".join(
        ["export const routes = {", *(f"\t'r{i}': '/{i}'," for i in range(200)), "};", ""]
    )
    edited = table.replace("'r100': '/100',", "'r100': '/hundred',")
    x, _ = _ts_spans(table, "typescript")
    hunks = _hunks(table.splitlines(), edited.splitlines())
    hint = StatementHint()
    for _ in range(STATEMENT_GIVE_UP + 1):
        got = spans.splice(
            x,
            hunks,
            forward=True,
            data=edited.encode(),
            parse=_region_of("typescript"),
            hint=hint,
        )
        assert got is not None and _same(got, _ts_spans(edited, "typescript")[0])
    assert hint.skip and hint.scans == STATEMENT_GIVE_UP and hint.found == 0


def test_an_attribute_left_above_the_next_member_joins_it():
    """Removing a member and its doc comment, but not the attribute of the member below (as a
    commit that drops a `#[cfg(windows)]` twin does), changes where the next member starts."""
    source = RS_MEMBERS_SOURCE.replace(
        "    /// Whether a directory.\n",
        "    #[cfg(windows)]\n    fn is_dir(&self) -> bool {\n        true\n    }\n\n"
        "    /// Whether a directory.\n",
    )
    edited = RS_MEMBERS_SOURCE
    for known, other in ((source, edited), (edited, source)):
        x, _ = _ts_spans(known, "rust")
        hunks = _hunks(known.splitlines(), other.splitlines())
        got = spans.splice(x, hunks, forward=True, data=other.encode(), parse=_region_of("rust"))
        assert got is not None and _same(got, _ts_spans(other, "rust")[0])


RS_MODULE_TEMPLATES = [
    *RS_TEMPLATES,
    ["use std::io;"],
    ["const LIMIT: i32 = 10;"],
    ["/// doc of what follows"],
    ["#[cfg(test)]"],
    ["#[derive(Debug,", "    Clone)]"],
    ['static NAMES: [&str; 1] = ["a"];'],
    ["/* block", "   comment */"],
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.lists(
        st.tuples(st.integers(0, 32), st.integers(0, 2), st.sampled_from(RS_MODULE_TEMPLATES)),
        min_size=1,
        max_size=3,
    )
)
def test_derived_rust_spans_equal_parsing(edits):
    """Rust hunks at module level too (imports, constants, attributes left without their item
    or cut from it), read against the known side's text."""
    old, new, new_text = _edited(RS_SOURCE, edits)
    (x, px), (y, py) = _ts_spans(RS_SOURCE, "rust"), _ts_spans(new_text, "rust")
    assume(px == py == "tree-sitter" and x.clean and y.clean)
    hunks = _hunks(old, new)
    assume(hunks)
    for fwd, known, want, data in ((True, x, y, RS_SOURCE), (False, y, x, new_text)):
        got = spans.derive(known, hunks, forward=fwd, text=lambda d=data: d.encode())
        if got is not None:
            assert _same(got, want), (fwd, hunks)


def test_rust_module_hunks_derive_unless_an_attribute_may_move():
    """A changed import derives; an attribute left above the next item, or a line removed
    from between an attribute and an item, does not."""
    base = "use a;\nuse b;\n\nfn f() {\n    1\n}\n"
    x, _ = _ts_spans(base, "rust")
    edited = base.replace("use b;", "use c;")
    hunks = _hunks(base.splitlines(), edited.splitlines())
    got = spans.derive(x, hunks, forward=True, text=base.encode)
    assert got is not None and _same(got, _ts_spans(edited, "rust")[0])
    assert spans.derive(x, hunks, forward=True) is None  # no text: no judgement
    for edited in (
        base.replace("use b;", "#[cfg(test)]"),
        base.replace("use b;", "use b; // ]"),
    ):
        hunks = _hunks(base.splitlines(), edited.splitlines())
        assert spans.derive(x, hunks, forward=True, text=base.encode) is None
    attached = "#[cfg(test)]\nuse b;\n\nfn f() {\n    1\n}\n"
    x, _ = _ts_spans(attached, "rust")
    edited = attached.replace("use b;\n", "")
    hunks = _hunks(attached.splitlines(), edited.splitlines())
    assert spans.derive(x, hunks, forward=True, text=attached.encode) is None
    assert _ts_spans(edited, "rust")[0].starts[1] == 1  # the attribute joined `f`


def test_rust_2015_try_macro_parses_cleanly():
    """`try!(...)` (a keyword from edition 2018 on) does not make a file unparsable; the
    symbols keep the file's own text."""
    text = b"fn load(p: &str) -> Result<i32, E> {\n    let v = try!(read(p));\n    Ok(v)\n}\n"
    found = treesitter.parse_tree(Source(text, "rust"))
    assert found is not None and not found[1]
    parsed = parse_source("m.rs", text)
    assert parsed.parser == "tree-sitter"
    assert [(s.qualname, s.start_line, s.end_line) for s in parsed.symbols[1:]] == [("load", 1, 4)]


# ---------------------------------------------------------------- intent (table-driven)

INTENT_CASES = [
    ("fix(payments): reuse one idempotency key across retries (INC-2407)", "bugfix"),
    ("feat: add CSV export", "feature"),
    ("feat(api)!: drop v1 endpoints", "feature"),
    ("perf: cache compiled regexes", "perf"),
    ("refactor(core): split the runner", "refactor"),
    ("docs: explain the store layout", "docs"),
    ("test: cover the journal lock", "test"),
    ("ci: run ruff on pull requests", "build"),
    ("build(deps): bump numpy to 2.1", "build"),
    ("chore: tidy gitignore", "chore"),
    ("style: reformat", "chore"),
    ("security: escape user names in templates", "security"),
    ("fix: sanitize path to prevent path traversal", "security"),
    ("Fix XSS in the comment preview", "security"),
    ("docs: describe the CSRF token", "docs"),
    (
        'Revert "perf: batch writes"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.',
        "revert",
    ),
    ("revert: undo the retry change", "revert"),
    ("Roll back the cache layer", "revert"),
    ("Fix crash when the config is empty", "bugfix"),
    ("Handle empty input\n\nThis fixes a crash on startup.", "bugfix"),
    ("Speed up blame parsing", "perf"),
    ("Optimise the Hamming scan", "perf"),
    ("Rename Store.open to Store.live", "refactor"),
    ("Update README", "docs"),
    ("Fix typo", "docs"),
    ("Add tests for the tokenizer", "test"),
    ("Bump version to 1.2.0", "build"),
    ("Add support for Go modules", "feature"),
    ("Implement the graveyard", "feature"),
    ("Initial commit", "chore"),
    ("Respond to INC-88", "bugfix"),
    ("", "chore"),
]


@pytest.mark.parametrize(("message", "intent"), INTENT_CASES)
def test_intent(message, intent):
    assert classify(message).intent == intent
    assert intent in INTENTS


def test_reverted_sha():
    msg = 'Revert "feat: x"\n\nThis reverts commit 0123456789ABCDEF0123456789abcdef01234567.\n'
    got = classify(msg)
    assert (got.intent, got.reverted_sha) == ("revert", "0123456789abcdef0123456789abcdef01234567")
    assert classify("fix: x").reverted_sha is None
    assert classify("This reverts commit abc1234 partially").reverted_sha == "abc1234"


@pytest.mark.parametrize(
    ("message", "ids"),
    [
        ("fix(payments): reuse key (INC-2407)", ("INC-2407",)),
        ("Closes #123 and #7; see ABC-12", ("#123", "#7", "ABC-12")),
        ("Patch CVE-2024-12345 (GH-9)", ("CVE-2024-12345", "GH-9")),
        ("Use UTF-8 and SHA-256 per RFC-3339", ()),
        ("color &#123; and issue#5 are not tickets", ()),
        ("JIRA-1 then JIRA-1 again, #2 #2", ("JIRA-1", "#2")),
        ("path/to/ABC-12 and x.ABC-13 are not ids", ()),
    ],
)
def test_tickets(message, ids):
    assert tickets(message) == ids
    assert classify(message).tickets == ids


def test_body_words_do_not_make_a_feature_a_bugfix() -> None:
    from gitstrata.stages.intent import classify

    assert (
        classify(
            "Foundation: store and pipeline\n\nErrors are one line; a crash mid-index is safe."
        ).intent
        == "chore"
    )
    assert (
        classify("Handle gateway timeouts\n\nThis fixes a crash when the gateway times out.").intent
        == "bugfix"
    )
    assert classify("Cache hot lookups\n\nMakes p99 lookups 30% faster.").intent in (
        "perf",
        "chore",
    )


def test_incremental_tree_equals_a_fresh_parse():
    """A version parsed from the previous version's tree (the per-file slot) gives the tree and
    the candidates a fresh parse gives, for small and large edits, growth and shrinkage."""
    base = "".join(f"fn f{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n\n" for i in range(40))
    versions = [
        base,
        base.replace("x + 7\n", "x + 7 + 1\n    // more\n"),  # a small edit inside a body
        base.replace("fn f20", "#[test]\nfn f20"),  # an attribute added mid-file
        base[: len(base) // 3],  # most of the file deleted: a fresh parse instead
        base[: len(base) // 3] + "struct S {\n    a: u8,\n}\n",
        base[: len(base) // 3] + "struct S {\n    a: u8,\n}\n",  # the same text again
        "impl S {\n    fn g(&self) {}\n}\n" + base,  # an edit at the very start
    ]
    slot: dict = {}
    for text in versions:
        raw = text.encode()
        got = treesitter.parse_tree(Source(raw, "rust"), slot)
        fresh = treesitter.parse_tree(Source(raw, "rust"))
        assert got is not None and fresh is not None
        assert str(slot["tree"][2].root_node) == str(
            treesitter._load("rust")[0].parse(raw).root_node
        )
        assert sorted((c.span, c.name, c.start_line, c.end_line) for c in got[0]) == sorted(
            (c.span, c.name, c.start_line, c.end_line) for c in fresh[0]
        )
        assert got[1] == fresh[1]


_RUST_LINES = [
    "fn f(x: u32) -> u32 {",
    "    x + 1",
    "}",
    "",
    "impl S {",
    "    fn g(&self) {}",
    "}",
    "#[test]",
    "struct T { a: u8 }",
    "// { a comment",
    '    let s = "}";',
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(_RUST_LINES), max_size=30),
    st.lists(st.sampled_from(_RUST_LINES), max_size=30),
    st.booleans(),
    st.booleans(),
)
def test_a_tree_edited_hunk_by_hunk_equals_a_fresh_parse(old_lines, new_lines, old_nl, new_nl):
    """The previous version's tree edited by the -U0 hunks between the versions (whole lines,
    `slot["moves"]`) parses to the tree a fresh parse gives; moves that do not describe the
    change are refused (then the one differing span is used), never trusted."""
    old = ("\n".join(old_lines) + ("\n" if old_nl and old_lines else "")).encode()
    new = ("\n".join(new_lines) + ("\n" if new_nl and new_lines else "")).encode()
    a, b = old.split(b"\n"), new.split(b"\n")
    if a[-1] == b"":
        a.pop()
    if b[-1] == b"":
        b.pop()
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    moves = [(i1, i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal"]
    parser = treesitter._load("rust")[0]
    fresh = str(parser.parse(new).root_node)
    for given_moves in (moves, [(m[0] + 1, m[1], m[2]) for m in moves]):
        edits = treesitter._line_edits(old, new, given_moves)
        if edits is not None:  # then the edits turn old into new: check by applying them
            text = old
            for start, old_end, new_end, *_ in edits:
                text = text[:start] + new[start:new_end] + text[old_end:]
            assert text == new
        slot: dict = {}
        treesitter.parse_tree(Source(old, "rust"), slot)
        slot["moves"] = given_moves
        treesitter.parse_tree(Source(new, "rust"), slot)
        assert str(slot["tree"][2].root_node) == fresh


def test_hunks_far_apart_edit_the_tree_instead_of_a_fresh_parse():
    """Two small hunks at both ends of a file are two edits (the one differing span between
    them would cover the whole file and force a fresh parse); wrong moves are refused."""
    lines = [f"fn f{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n" for i in range(60)]
    old = "".join(lines).encode()
    new_lines = ["// head\n", *lines]
    new_lines[-2] = "fn tail() {}\n"
    new = "".join(new_lines).encode()
    moves = [(0, 0, 1), (len(lines) * 3 - 6, 3, 1)]  # lines are three rows each
    edits = treesitter._line_edits(old, new, moves)
    assert edits is not None and len(edits) == 2
    assert treesitter._line_edits(old, new, [(0, 0, 1)]) is None
    assert treesitter._line_edits(old, new, [(1, 0, 1), moves[1]]) is None
    slot: dict = {}
    treesitter.parse_tree(Source(old, "rust"), slot)
    before = slot["tree"][2]
    slot["moves"] = moves
    got = treesitter.parse_tree(Source(new, "rust"), slot)
    assert slot["tree"][2] is not before and "moves" not in slot
    parser = treesitter._load("rust")[0]
    assert str(slot["tree"][2].root_node) == str(parser.parse(new).root_node)
    fresh = treesitter.parse_tree(Source(new, "rust"))
    assert got is not None and fresh is not None
    assert sorted((c.span, c.name) for c in got[0]) == sorted((c.span, c.name) for c in fresh[0])
