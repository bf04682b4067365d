"""What a changed file is, from its path alone: product source, tests, docs, build or chore.

Deterministic and language-agnostic: names and folders that the common ecosystems (Python,
JavaScript / TypeScript, Go, Rust, Java, Ruby) use by convention. The commit-intent classifier
(`stages/intent.py`) reads a commit's mix of kinds as evidence of its purpose: a commit that touches only
tests is a test change whatever its subject says. Order matters: chore names win over docs
(`ISSUE_TEMPLATE.md` is not documentation), build names over tests (`tests.yaml` of a CI
workflow is CI), examples over tests (`example_test.go` is runnable documentation).
Deployment manifests (`deploy/`, Kubernetes, Terraform) stay source: for a service they are part
of what runs in production, and a fix to them is a fix.
"""

from __future__ import annotations

import functools
import re

from .regexcache import compile_pattern

KINDS = ("source", "test", "docs", "build", "chore")


def _names(*names: str) -> re.Pattern[str]:
    return compile_pattern("|".join(f"(?:{n})" for n in names), re.I)


# matched against the file name (last path segment)
_CHORE_NAME = _names(
    r"\.gitignore",
    r"\.gitattributes",
    r"\.editorconfig",
    r"\.mailmap",
    r"\.git-blame-ignore-revs",
    r"authors(?:\.\w+)?",
    r"contributors(?:\.\w+)?",
    r"code_of_conduct(?:\.\w+)?",
    r"(?:issue|pull_request)_template(?:\.\w+)?",
    r"funding\.ya?ml",
    r"codeowners",
)
_CHORE_DIR = compile_pattern(
    r"(?:^|/)(?:\.github/(?:issue_template|pull_request_template)|\.vscode|\.idea)/", re.I
)

_BUILD_DIR = compile_pattern(
    r"(?:^|/)(?:\.github/workflows|\.github/actions|\.circleci|\.buildkite|\.cargo|ci|\.ci"
    r"|requirements|\.devcontainer|\.husky|packaging|debian|snap|homebrewformula"
    r"|pkg/(?:brew|homebrew|deb|rpm"
    r"|windows|macos|arch|aur|snap|choco\w*))/",
    re.I,
)
_BUILD_NAME = _names(
    # manifests and lock files
    r"package\.json",
    r"package-lock\.json",
    r"npm-shrinkwrap\.json",
    r"yarn\.lock",
    r"pnpm-lock\.yaml",
    r"pnpm-workspace\.yaml",
    r"bun\.lockb?",
    r"cargo\.toml",
    r"cargo\.lock",
    r"go\.mod",
    r"go\.sum",
    r"go\.work(?:\.sum)?",
    r"pyproject\.toml",
    r"setup\.py",
    r"setup\.cfg",
    r"requirements[\w.-]*\.(?:txt|in)",
    r"constraints[\w.-]*\.txt",
    r"pipfile(?:\.lock)?",
    r"poetry\.lock",
    r"uv\.lock",
    r"manifest\.in",
    r"gemfile(?:\.lock)?",
    r"[\w.-]+\.gemspec",
    r"pom\.xml",
    r"build\.gradle(?:\.kts)?",
    r"settings\.gradle(?:\.kts)?",
    r"gradle\.properties",
    r"composer\.(?:json|lock)",
    r"seed\.yml",
    r"component\.json",
    r"bower\.json",
    # build, CI and tool configuration
    r"makefile",
    r"gnumakefile",
    r"justfile",
    r"cmakelists\.txt",
    r"build\.rs",
    r"dockerfile(?:\.\w+)?",
    r"\.dockerignore",
    r"\.npmignore",
    r"\.npmrc",
    r"\.yarnrc(?:\.yml)?",
    r"\.nvmrc",
    r"\.node-version",
    r"\.python-version",
    r"rust-toolchain(?:\.toml)?",
    r"\.travis\.yml",
    r"appveyor\.yml",
    r"\.gitlab-ci\.yml",
    r"azure-pipelines\.yml",
    r"\.cirrus\.yml",
    r"jenkinsfile",
    r"tox\.ini",
    r"noxfile\.py",
    r"\.pre-commit-config\.yaml",
    r"\.pre-commit-hooks\.yaml",
    r"\.readthedocs\.ya?ml",
    r"readthedocs\.ya?ml",
    r"\.flake8",
    r"\.pylintrc",
    r"pylintrc",
    r"mypy\.ini",
    r"\.coveragerc",
    r"codecov\.ya?ml",
    r"\.codecov\.ya?ml",
    r"\.eslintrc(?:\.\w+)?",
    r"eslint\.config\.\w+",
    r"\.eslintignore",
    r"\.prettierrc(?:\.\w+)?",
    r"\.prettierignore",
    r"prettier\.config\.\w+",
    r"tsconfig(?:\.[\w-]+)?\.json",
    r"\.babelrc(?:\.\w+)?",
    r"babel\.config\.\w+",
    r"webpack\.config\.\w+",
    r"rollup\.config\.\w+",
    r"vite\.config\.\w+",
    r"\.golangci\.ya?ml",
    r"\.goreleaser\.ya?ml",
    r"rustfmt\.toml",
    r"\.rustfmt\.toml",
    r"clippy\.toml",
    r"deny\.toml",
    r"\.gitmodules",
    r"dependabot\.ya?ml",
    r"renovate\.json5?",
    r"\.renovaterc(?:\.json)?",
    r"release-drafter\.ya?ml",
    r"release\.toml",
    r"snapcraft\.yaml",
)

_EXAMPLE = compile_pattern(
    r"(?:^|/)(?:examples?|_examples|demos?)/|(?:^|/)example_[^/]*_test\.go$", re.I
)
_TEST_DIR = compile_pattern(
    r"(?:^|/)(?:tests?|spec|specs|__tests__|__mocks__|testdata|test[_-]data|fixtures|testing/fixtures"
    r"|benches|benchmarks?|benchsuite|cypress|e2e)/",
    re.I,
)
_TEST_NAME = compile_pattern(
    r"^(?:test_[^/]*\.py|[^/]*_test\.(?:py|go|rs|rb|exs?)|[^/]*_spec\.rb|conftest\.py"
    r"|[^/]*\.(?:test|spec|test-d|bench)\.[cm]?[jt]sx?|tests?\.[cm]?[jt]s|test\.py"
    r"|[^/]*Tests?\.(?:java|kt|cs|swift))$",
    re.I,
)

_DOCS_DIR = compile_pattern(r"(?:^|/)(?:docs?|documentation|man|site|website|guide)/", re.I)
_DOCS_NAME = compile_pattern(
    r"^(?:readme|changes|changelog|history|news|release[-_]?notes|contributing|security"
    r"|license|licence|copying|unlicense|faq|guide|notice|support|governance|maintainers?)"
    r"(?:[-_][\w-]*)?(?:\.(?:md|markdown|rst|txt|adoc|asciidoc|rdoc|org|html|textile))?$"
    r"|\.(?:md|markdown|rst|adoc|asciidoc|rdoc|txt|texi|pod)$"
    r"|\.\d$"  # man pages
    r"|^doc\.go$",
    re.I,
)
_CHANGELOG = compile_pattern(
    r"^(?:changes|changelog|history|news|release[-_]?notes)(?:\.(?:md|markdown|rst|txt|adoc))?$",
    re.I,
)


@functools.lru_cache(maxsize=1 << 16)  # a history asks about the same paths again and again
def kind(path: str) -> str:
    """One of `KINDS` for a repository-relative path."""
    name = path.rsplit("/", 1)[-1]
    if _CHORE_NAME.fullmatch(name) or _CHORE_DIR.search(path):
        return "chore"
    if _BUILD_NAME.fullmatch(name) or _BUILD_DIR.search(path):
        return "build"
    if path.startswith((".github/", ".gitlab/")):
        # bots' and the forge's settings (stale, labeler, templates) are housekeeping
        return "docs" if _DOCS_NAME.search(name) else "chore"
    if _EXAMPLE.search(path):
        return "docs"
    if _TEST_DIR.search(path) or _TEST_NAME.match(name):
        return "test"
    if _DOCS_DIR.search(path) or _DOCS_NAME.search(name):
        return "docs"
    return "source"


_PROSE_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".asciidoc", ".rdoc")


def is_prose(path: str) -> bool:
    """A file of prose, not code: Markdown, reStructuredText, AsciiDoc or plain text, or a
    changelog whatever its name's suffix (`HISTORY`, `NEWS`)."""
    return path.lower().endswith(_PROSE_SUFFIXES) or is_changelog(path)


def is_code(path: str) -> bool:
    """Product source or tests: what a code hotspot may be (not docs, build or housekeeping)."""
    return kind(path) in ("source", "test")


def is_changelog(path: str) -> bool:
    return bool(_CHANGELOG.match(path.rsplit("/", 1)[-1]))


# Under a test folder but not a test a runner collects: the data tests read and the helpers
# they import (`test/fixtures/user.jade`, `test/support/utils.js`, `test/helpers/with-page.ts`,
# `conftest.py`). `test/utils.js` is a test (of `lib/utils.js`); `test/support/utils.js` is not.
_TEST_SUPPORT_DIR = compile_pattern(
    r"(?:^|/)(?:fixtures?|__fixtures__|testdata|test[_-]data|data|support|helpers?|mocks?"
    r"|__mocks__|__snapshots__|snapshots|stubs)/",
    re.I,
)
_TEST_SUPPORT_NAME = compile_pattern(r"^(?:conftest\.py|__init__\.py|setup[^/]*)$", re.I)
# what a test runner executes: a program in a language, not data, markup or a snapshot
_RUNNABLE_SUFFIX = compile_pattern(
    r"\.(?:py|pyi|[cm]?[jt]sx?|go|rs|rb|exs?|java|kt|kts|scala|cs|fs|swift|php|c|cc|cpp|cxx"
    r"|m|mm|lua|pl|t|sh|bats|zig|dart|hs|ml|clj|cljs|jl|r)$",
    re.I,
)


@functools.lru_cache(maxsize=1 << 14)
def is_test_to_run(path: str) -> bool:
    """A test file a runner collects and an agent would run after a change: of kind "test",
    code by its suffix, and neither data nor a helper the tests import."""
    name = path.rsplit("/", 1)[-1]
    return (
        kind(path) == "test"
        and bool(_RUNNABLE_SUFFIX.search(name))
        and not _TEST_SUPPORT_DIR.search(path)
        and not _TEST_SUPPORT_NAME.match(name)
    )


# a test file name's marks: `test_` before, `_test` / `.test` / `.spec` / `-test` after, `Test`
# or `Tests` after a class name
_TEST_MARK = compile_pattern(r"^tests?[_-]|[_.-](?:tests?|specs?|test-d)$|(?<=[a-z0-9])Tests?$")


@functools.lru_cache(maxsize=1 << 14)
def tested_name(path: str) -> str:
    """What a test file's name says it tests, lowercased: its name without its suffix and test
    marks (`test/res.status.js` -> `res.status`, `tests/test_parser.py` -> `parser`,
    `mux_test.go` -> `mux`, `src/foo.spec.ts` -> `foo`, `FooTests.cs` -> `foo`)."""
    name = _RUNNABLE_SUFFIX.sub("", path.rsplit("/", 1)[-1])
    while (bare := _TEST_MARK.sub("", name, count=1)) != name and bare:
        name = bare
    return name.lower()


# A changed line that only carries a comment (or nothing): `#` but not Rust's `#[attr]` / `#!`,
# `//`, C-style block lines, and a lone docstring / block delimiter.
_COMMENT_LINE = compile_pattern(
    rb"^\s*(?:$|#(?![\[!])|//|/\*|\*(?:\s|/|$)|--\s|;;|\"\"\"\s*$|'''\s*$|<!--)"
)


def comment_only(lines: list[bytes]) -> bool:
    """True when every changed line is a comment or blank, and at least one is a comment."""
    seen = False
    for line in lines:
        if not _COMMENT_LINE.match(line):
            return False
        seen = seen or bool(line.strip())
    return seen


BINARY_SNIFF = 8192
# formats that are not text although their first bytes hold no NUL: a PDF (and an Illustrator
# file, which is one) opens with readable metadata before its compressed streams
BINARY_MAGIC = (b"%PDF-",)


def is_binary(data: bytes) -> bool:
    """Content no one edits as text: a NUL among the first `BINARY_SNIFF` bytes (as git judges),
    or a known binary format."""
    return b"\0" in data[:BINARY_SNIFF] or data.startswith(BINARY_MAGIC)
