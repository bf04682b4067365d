"""Commit intent from the message and the changed files; team rules from the config."""

from __future__ import annotations

import json

import pytest

from gitstrata.pipeline.gitio import Git
from gitstrata.pipeline.history import extract_all, rev_list
from gitstrata.stages import capsule
from gitstrata.stages.intent import FileFacts, classify, compile_rules, named_in_subject
from gitstrata.store import filekind
from gitstrata.store.config import Config, HistoryConfig
from gitstrata.store.errors import ConfigError
from gitstrata.store.vocabulary import INTENTS


def files(*paths: str, comment_only: bool = False) -> list[FileFacts]:
    return [FileFacts(p, 3, 1, comment_only=comment_only) for p in paths]


CASES = [
    # the files decide when no product source changed, whatever the subject says
    ("Fix the parser tests", ["tests/test_parser.py"], "test"),
    ("Fix flaky tests", ["test/retry.ts", "test/helpers/page.ts"], "test"),
    ("Fix bug in the README example", ["README.md"], "docs"),
    ("Fix issue #725", ["docs/options.rst", "docs/parameters.rst"], "docs"),
    ("Update CHANGES.rst", ["CHANGES.rst"], "docs"),
    ("Fix CI", [".github/workflows/tests.yaml"], "build"),
    ("Fix Travis", [".travis.yml"], "build"),
    ("Update things", ["Cargo.lock"], "build"),
    ("Refresh", ["package-lock.json", "package.json"], "build"),
    ("update pallets-sphinx-themes", ["requirements/docs.in", "requirements/docs.txt"], "build"),
    ("build: Add .editorconfig", [".editorconfig"], "chore"),
    ("Ignore the venv", [".gitignore"], "chore"),
    ("Run the example", ["examples/upload/app.js"], "docs"),
    # a mix without source: the purpose the subject names, else the larger part
    ("Fix flaky browser tests", [".github/workflows/main.yml", "test/browser.ts"], "test"),
    ("Move to GitHub Actions", [".github/workflows/main.yml", ".travis.yml", "readme.md"], "build"),
    ("Prepare", ["CHANGES.md", "package.json"], "build"),
    # releases and dependency bumps
    ("3.15.0", ["History.md", "package.json"], "build"),
    ("Release 0.3.0", ["History.md", "lib/core.js"], "build"),
    ("Bump version to 1.2.0", ["src/pkg/__init__.py"], "build"),
    ("Bump pytest from 6.0.1 to 6.0.2", ["requirements/dev.txt"], "build"),
    ("deps: send@0.7.0", ["History.md", "lib/response.js", "package.json"], "build"),
    # security: an advisory id or a named vulnerability in shipped code
    ("Escape header values\n\nFixes CVE-2024-12345.", ["lib/http.js"], "security"),
    ("Check the token (GHSA-c2qf-rxjj-qqgw)", ["src/auth.py"], "security"),
    ("Prevent path traversal in the static handler", ["lib/static.js"], "security"),
    # ... but not a dependency bump, a policy file or the word in passing
    ("fix: bump qs for CVE-2026-2391", ["package.json"], "build"),
    ("Bump qs from 6.1 to 6.2\n\nSecurity fix for CVE-2026-2391.", ["package.json"], "build"),
    ("Update the security policy", ["SECURITY.md"], "docs"),
    ("Enable dependabot security updates", [".github/dependabot.yml"], "build"),
    ("Refactor the security module", ["src/security.py"], "refactor"),
    # product source: the conventional type, then word-bounded subject keywords
    ("fix(parser): accept empty input", ["src/parser.py"], "bugfix"),
    ("feat: streaming", ["src/stream.py", "tests/test_stream.py"], "feature"),
    ("Fix crash on empty input (#123)", ["src/parser.py"], "bugfix"),
    ("Add a prefix option", ["src/cli.py"], "feature"),
    ("Add debug logging", ["src/log.py"], "feature"),
    ("Add prefix matching (#12)", ["src/match.go"], "feature"),
    ("Speed up prefix lookups", ["src/trie.rs"], "perf"),
    ("Rename the debug helpers", ["src/debug.py"], "refactor"),
    ("Fix typo", ["src/core.py"], "docs"),
    ("printer: fix column numbers", ["crates/printer/src/lib.rs"], "bugfix"),
    ("lint: remove golint warnings", ["regexp.go"], "chore"),
    ("use ruff lint and format", ["pyproject.toml", ".flake8", "src/core.py"], "build"),
    # trailers: a fixed issue is evidence, but a feature may close an issue too
    ("Handle empty input\n\nFixes #12", ["src/parser.py"], "bugfix"),
    ("Fix #164", ["src/core.py"], "bugfix"),
    ("Implement the streaming pager. Fixes #409", ["src/pager.py"], "feature"),
    # comments only: documentation, even in a source file
    ("Clarify StrictSlash", ["route.go"], "docs"),
    # reverts; a revert of a revert re-applies the change
    ('Revert "Add X"\n\nThis reverts commit 0123456789abcdef.', ["src/x.py"], "revert"),
    ('Revert "Revert "Add streaming""', ["src/stream.py", "tests/test_s.py"], "feature"),
    # nothing stated: tests or a changelog entry mean a visible change
    ("get default before processing value", ["src/core.py", "CHANGES.rst"], "feature"),
    ("wrapper to getter", ["route.go"], "refactor"),
    ("nothing", [], "chore"),
    # code in a subject is not its purpose: a flag, a backticked name, a quoted command
    ("add --fixed-strings flag", ["crates/core/app.rs"], "feature"),
    ("Add example to -r/--replace docs.", ["crates/core/app.rs"], "docs"),
    # (no purpose left in its words: a source edit's default, not the bugfix "fix" suggested)
    ("edition: initial 'cargo fix --edition' run", ["src/lib.rs"], "refactor"),
    ("Don't crash when it's empty", ["src/parser.py"], "bugfix"),
    ('"Add the ability to force an install"', ["bin/cli.js"], "feature"),  # all quoted
    ("`go fmt`", ["mux.go"], "chore"),  # all code: read as written
    # a fix of prose is documentation, in whatever file the prose is
    ("Fix docs and changelog", ["src/core.py", "CHANGES.rst"], "docs"),
    ("Fix documentation of MultiCommand", ["src/core.py"], "docs"),
    ("Fix crash when the docs folder is missing", ["src/core.py"], "bugfix"),
    # a linter's name as the prefix
    ("clippy: fix warnings about a useless format call", ["src/main.rs"], "chore"),
]


@pytest.mark.parametrize(("message", "paths", "intent"), CASES)
def test_intent_from_message_and_files(message, paths, intent):
    comment_only = message.startswith("Clarify")
    assert classify(message, files(*paths, comment_only=comment_only)).intent == intent
    assert intent in INTENTS


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        ("Add prefix matching", "feature"),  # "prefix" holds "fix" but is not a fix
        ("Add debug output", "feature"),  # "debug" holds "bug"
        ("Speed up the prefix tree", "perf"),
        ("Fix the debugger attach", "bugfix"),
        ("Document the security policy", "docs"),
        ("Escape output\n\nFixes CVE-2024-1234", "security"),
    ],
)
def test_message_alone_uses_word_boundaries(message, intent):
    assert classify(message).intent == intent


@pytest.mark.parametrize(
    ("subject", "named"),
    [
        ('Revert "Add python 3.9 to CI."', ("subject", "Add python 3.9 to CI.")),
        ('Revert "feat: cache (#41)" (#42)', ("subject", "feat: cache")),
        ("Revert 60ef759", ("sha", "60ef759")),
        ("Revert commit ABCDEF12: broke the build", ("sha", "abcdef12")),
        ('Revert "Revert "Merge Stable into master""', None),  # re-applies: not a revert
        ("revert: drop the cache", None),
        ("revert adding space between option help", None),
    ],
)
def test_a_revert_subject_names_what_it_reverts(subject, named):
    assert named_in_subject(subject) == named


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("src/click/core.py", "source"),
        ("tests/test_options.py", "test"),
        ("mux_test.go", "test"),
        ("example_route_test.go", "docs"),
        ("index.test-d.ts", "test"),
        ("crates/core/tests/feature.rs", "test"),
        ("docs/api.md", "docs"),
        ("doc.go", "docs"),
        ("doc/rg.1", "docs"),
        ("CHANGELOG.md", "docs"),
        ("LICENSE", "docs"),
        ("Cargo.lock", "build"),
        ("crates/core/Cargo.toml", "build"),
        ("go.sum", "build"),
        ("requirements/dev.txt", "build"),
        (".github/workflows/tests.yaml", "build"),
        (".github/ISSUE_TEMPLATE/bug.md", "chore"),
        (".github/stale.yml", "chore"),
        (".github/SECURITY.md", "docs"),
        ("pkg/brew/tool.rb", "build"),
        ("deploy/nginx/api.conf", "source"),
        ("ISSUE_TEMPLATE.md", "chore"),
        ("AUTHORS", "chore"),
        ("src/testing.py", "source"),
        ("lib/express/prefix.js", "source"),
    ],
)
def test_file_kinds(path, kind):
    assert filekind.kind(path) == kind


@pytest.mark.parametrize(
    ("path", "runs"),
    [
        ("tests/test_cart.py", True),
        ("test/res.sendFile.js", True),
        ("test/utils.js", True),  # the test of lib/utils.js
        ("mux_test.go", True),
        ("source/index.test-d.ts", True),
        ("tests/index/basic.rs", True),
        ("test/support/utils.js", False),  # a helper the tests import
        ("test/helpers/with-page.ts", False),
        ("test/fixtures/user.jade", False),  # data a test reads
        ("test/fixtures/.name", False),
        ("tests/data/sherlock.lz4", False),
        ("tests/conftest.py", False),
        ("tests/test_utils/__init__.py", False),
        ("test/__snapshots__/main.ts.snap", False),
        ("lib/cart.py", False),  # product code
    ],
)
def test_tests_to_run(path, runs):
    assert filekind.is_test_to_run(path) is runs


@pytest.mark.parametrize(
    ("path", "tested"),
    [
        ("test/res.status.js", "res.status"),
        ("tests/test_parser.py", "parser"),
        ("mux_test.go", "mux"),
        ("src/foo.spec.ts", "foo"),
        ("source/index.test-d.ts", "index"),
        ("FooTests.cs", "foo"),
        ("spec/models/user_spec.rb", "user"),
        ("tests/test.py", "test"),  # nothing but the mark: kept as it is
        ("test/hooks.ts", "hooks"),
    ],
)
def test_what_a_test_file_is_named_after(path, tested):
    assert filekind.tested_name(path) == tested


def test_comment_only_lines():
    assert filekind.comment_only([b"// Route is a route.", b""])
    assert filekind.comment_only([b"    # why: the parent may be gone", b" * @param {Object} x"])
    assert not filekind.comment_only([b""])  # blank lines alone are not a comment change
    assert not filekind.comment_only([b"#[derive(Debug)]"])  # Rust attribute
    assert not filekind.comment_only([b"    *p = 1;"])  # pointer write, not a comment
    assert not filekind.comment_only([b"// note", b"return x"])


# ---------------------------------------------------------------- team rules


def rules_of(data: dict) -> tuple:
    return compile_rules(Config.from_dict({"history": {"intent_rules": data}}).history.intent_rules)


def test_team_rules_apply_first_in_order():
    rules = rules_of(
        [
            {"pattern": "^release:", "intent": "build"},
            {"paths": ["deploy/**", "*.sh"], "intent": "build"},
            {"pattern": "(?i)hotpatch", "paths": ["src/**"], "intent": "bugfix"},
        ]
    )
    src = files("src/parser.py")
    assert classify("release: fix the crash", src, rules).intent == "build"
    assert classify("Fix the crash", files("deploy/run.yml", "start.sh"), rules).intent == "build"
    # a path rule needs every changed path to match
    assert classify("Fix the crash", files("deploy/run.yml", "src/a.py"), rules).intent == "bugfix"
    assert classify("HotPatch the parser", src, rules).intent == "bugfix"
    assert classify("HotPatch the parser", files("docs/a.md"), rules).intent == "docs"
    assert classify("Add the parser", src, rules).intent == "feature"


@pytest.mark.parametrize(
    ("rule", "where", "what"),
    [
        ({"pattern": "(fix", "intent": "build"}, "history.intent_rules.0.pattern", "regular"),
        ({"pattern": "x", "intent": "nope"}, "history.intent_rules.0.intent", "bugfix"),
        ({"intent": "build"}, "history.intent_rules.0", "pattern"),
    ],
)
def test_bad_rules_are_one_line_errors_naming_the_key(tmp_path, rule, where, what):
    (tmp_path / "config.json").write_text(json.dumps({"history": {"intent_rules": [rule]}}))
    with pytest.raises(ConfigError) as err:
        Config.load(tmp_path)
    message = str(err.value)
    assert message.startswith(f"config.json: {where}: ")
    assert what in message and "\n" not in message


def test_capsule_stage_classifies_with_files_and_rules(git_repo):
    r = git_repo
    r.commit("Add the parser", {"src/parser.py": "def parse(x):\n    return x\n"})
    r.commit("Fix the parser tests", {"tests/test_parser.py": "def test_parse():\n    pass\n"})
    r.commit("Fix bug in the README", {"README.md": "# parser\n"})
    r.commit("Fix CI", {".github/workflows/ci.yml": "on: push\n"})
    r.commit("Explain parse", {"src/parser.py": "def parse(x):\n    # as is\n    return x\n"})
    r.commit("release: 1.0", {"src/parser.py": "def parse(x):\n    # as is\n    return x or 0\n"})
    git = Git(r.path)
    shas = rev_list(git, git.require_head())

    def intents(cfg: HistoryConfig) -> list[str]:
        cs, ts, _ = extract_all(git, shas, cfg, workers=1)
        commits, _ = capsule.finalize(cs, ts)
        return commits["intent"].to_pylist()

    assert intents(HistoryConfig()) == ["feature", "test", "docs", "build", "docs", "build"]
    ruled = Config.from_dict(
        {"history": {"intent_rules": [{"pattern": "^Explain", "intent": "chore"}]}}
    ).history
    assert intents(ruled) == ["feature", "test", "docs", "build", "chore", "build"]


def test_readme_intent_rules_example_is_valid():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    blocks = [b.split("```", 1)[0] for b in section.split("```json")[1:]]
    block = next(b for b in blocks if '"pattern"' in b)
    rules = compile_rules(Config.from_dict(json.loads(block)).history.intent_rules)
    assert [r.intent for r in rules] == ["build", "build", "bugfix"]
    assert classify("release: 2.0", files("src/a.py"), rules).intent == "build"
    assert classify("HotPatch the parser", files("src/a.py"), rules).intent == "bugfix"


def test_real_intent_benchmark_scores_the_stage_against_labels(git_repo, tmp_path):
    from gitstrata.benchmarks import intents_real

    r = git_repo
    shas = [
        r.commit("Add the parser", {"src/parser.py": "def parse(x):\n    return x\n"}),
        r.commit("Fix the parser tests", {"tests/test_parser.py": "def test_parse():\n    pass\n"}),
        r.commit(
            "Fix crash on empty input", {"src/parser.py": "def parse(x):\n    return x or 0\n"}
        ),
        r.commit("Tidy", {"src/parser.py": "def parse(x):\n    return x or 1\n"}),
    ]
    labels = tmp_path / "labels"
    labels.mkdir()
    gold = ["feature", "test", "bugfix", "bugfix"]
    (labels / "repo.jsonl").write_text(
        "".join(
            json.dumps({"sha": s, "intent": g, "why": ""}) + "\n"
            for s, g in zip(shas, gold, strict=True)
        )
    )
    result = intents_real.evaluate(r.path, labels)
    assert result is not None
    assert (result["n"], result["accuracy"]) == (4, 0.75)  # "Tidy" is a refactor to the stage
    assert (result["bugfix_precision"], result["bugfix_recall"]) == (1.0, 0.5)
    assert result["confusions"] == {"bugfix->refactor": 1}
    assert [e["sha"] for e in result["errors"]] == [shas[3]]
    assert "bugfix->refactor 1" in intents_real.render([result])
    assert intents_real.evaluate(r.path, tmp_path) is None  # no labels for this repository
