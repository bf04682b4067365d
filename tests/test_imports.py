"""Import resolution per language on small file sets, and through the chunk stage on a real repo:
Go packages and go.mod, JS/TS folders, index files, package.json "main" and tsconfig aliases,
Rust `mod` / `use crate::` / `use super::`."""

from __future__ import annotations

import pytest

from gitstrata.pipeline.runner import run_index
from gitstrata.pipeline.tree import CHUNK
from gitstrata.stages.chunking import go_names, parse_source, project_facts, resolve_imports
from gitstrata.store.generations import Store


def links(path: str, source: str, known: set[str], facts: dict[str, str] | None = None):
    pf = parse_source(path, source.encode())
    return resolve_imports(path, pf.language, pf.imports, known, project_facts(facts or {}))


GO = {"go.mod", "mux.go", "route.go", "mux_test.go", "regexp_test.go", "internal/x/x.go"}
GO |= {"internal/x/x_test.go", "internal/x/doc.go", "cmd/tool/main.go"}
GOMOD = {"go.mod": "// the module\nmodule github.com/gorilla/mux\n\ngo 1.20\n"}


def test_go_files_of_one_package_are_linked() -> None:
    # every file sees the package's sources (not its tests)
    assert links("route.go", "package mux\n", GO) == ["mux.go"]
    assert links("mux_test.go", 'package mux\nimport "testing"\n', GO) == ["mux.go", "route.go"]
    assert links("internal/x/x_test.go", "package x\n", GO) == [
        "internal/x/doc.go",
        "internal/x/x.go",
    ]


GO_PACKAGE = {
    "go.mod": "module example.com/mux\n",
    "doc.go": "// Package mux routes requests.\npackage mux\n",
    "mux.go": (
        'package mux\n\nvar (\n\tErrNotFound = errors.New("x")\n\tlimit, depth = 1, 2\n)\n\n'
        "type Router struct{ routes []*Route }\n\nfunc NewRouter() *Router { return &Router{} }\n\n"
        "func (r *Router) Match(req *http.Request) bool { return len(r.routes) > limit }\n"
    ),
    "route.go": (
        "package mux\n\ntype Route struct{ err error }\n\n"
        "func (r *Route) Match(req *http.Request) bool { return r.err == ErrNotFound }\n\n"
        "func (r *Route) Host(tpl string) *Route { return r }\n"
    ),
    "regexp.go": "package mux\n\ntype routeRegexp struct{}\n\nfunc (r *routeRegexp) Match() {}\n",
    "test_helpers.go": "package mux\n\nfunc setVars(r *http.Request) {}\n",
    "helpers_test.go": "package mux\n\nfunc newRequest() *http.Request { return nil }\n",
    "mux_test.go": (
        "package mux\n\nfunc TestRouter(t *testing.T) {\n\tr := NewRouter()\n\t"
        "setVars(newRequest())\n\t_ = r.Match(nil)\n}\n"
    ),
    "example_test.go": (
        'package mux_test\n\nimport "example.com/mux"\n\nfunc Example() {\n\t'
        'r := mux.NewRouter()\n\tr.Host("x")\n\tr.Match(nil)\n}\n'
    ),
}


def test_go_package_links_follow_the_names_a_file_uses() -> None:
    """Within a package a file links to the files defining a name it mentions (functions,
    types, grouped vars); doc.go (no declarations) is never a target; test helpers are linked
    from tests only; a method name several types define (`Match`) is no evidence; an external
    test package links to the files defining what it takes from the imported package."""
    facts = project_facts({"go.mod": GO_PACKAGE["go.mod"]})
    known = set(GO_PACKAGE)
    names = {p: go_names(t.encode()) for p, t in GO_PACKAGE.items() if p.endswith(".go")}
    assert names["mux.go"].defined == {"ErrNotFound", "limit", "depth", "Router", "NewRouter"}

    def resolved(path: str) -> list[str]:
        pf = parse_source(path, GO_PACKAGE[path].encode())
        return resolve_imports(path, "go", pf.imports, known, facts, names)

    assert resolved("mux.go") == ["route.go"]
    assert resolved("route.go") == ["mux.go"]
    assert resolved("regexp.go") == []
    assert resolved("doc.go") == []
    assert resolved("mux_test.go") == ["helpers_test.go", "mux.go", "test_helpers.go"]
    assert resolved("example_test.go") == ["mux.go", "route.go"]


def test_go_module_paths_resolve_through_go_mod() -> None:
    src = 'package main\nimport (\n\t"fmt"\n\tmux "github.com/gorilla/mux"\n\t"github.com/gorilla/mux/internal/x"\n)\n'
    assert links("cmd/tool/main.go", src, GO, GOMOD) == [
        "internal/x/doc.go",
        "internal/x/x.go",
        "mux.go",
        "route.go",
    ]
    # with a go.mod, a path outside the module is a dependency even if a folder matches it
    assert links("cmd/tool/main.go", 'import "github.com/other/x"\n', GO, GOMOD) == []
    # a module in a subfolder (its own go.mod)
    nested = {"tools/go.mod": "module example.com/tools\n"}
    known = GO | {"tools/go.mod", "tools/lint/lint.go"}
    assert links("cmd/tool/main.go", 'import "example.com/tools/lint"\n', known, nested) == [
        "tools/lint/lint.go"
    ]


JS = {"index.js", "lib/express.js", "lib/router/index.js", "lib/utils.js", "test/app.js"}
JS |= {"test/support/utils.js", "pkg/package.json", "pkg/dist/main.js", "pkg/index.js"}


@pytest.mark.parametrize(
    ("path", "spec", "expected"),
    [
        ("test/app.js", "..", ["index.js"]),
        ("lib/express.js", "./", ["lib/express.js"]),  # lib/ has no index: nothing but itself
        ("lib/router/x.js", "..", []),
        ("lib/router/x.js", "./", ["lib/router/index.js"]),
        ("lib/express.js", "./router", ["lib/router/index.js"]),
        ("lib/express.js", "./utils", ["lib/utils.js"]),
        ("lib/express.js", "./utils.js", ["lib/utils.js"]),
        ("test/app.js", "./support/utils", ["test/support/utils.js"]),
        ("test/app.js", "../pkg", ["pkg/dist/main.js"]),  # package.json "main" before index
        ("test/app.js", "../../outside", []),
        ("test/app.js", "express", []),
    ],
)
def test_js_relative_requires(path: str, spec: str, expected: list[str]) -> None:
    facts = {"pkg/package.json": '{"name": "p", "main": "./dist/main"}'}
    src = f"const x = require('{spec}')\n"
    got = links(path, src, JS | {path}, facts)
    assert got == [e for e in expected if e != path]


def test_ts_index_extensions_and_import_forms() -> None:
    known = {"src/a.ts", "src/b/index.tsx", "src/c.mjs", "src/d/index.mjs", "src/e.cjs"}
    src = (
        "import a from './a'\nimport {B} from './b'\nexport * from './c'\n"
        "const d = await import('./d')\nimport type {E} from './e'\n"
    )
    assert links("src/main.ts", src, known | {"src/main.ts"}) == sorted(known)


TSCONFIG = """{
  // comments and trailing commas are allowed in tsconfig.json
  "compilerOptions": {
    "baseUrl": "./src",
    "paths": {"@app/*": ["app/*"], "@shared": ["../shared/index.ts"], "#x/*": ["nope/*", "x/*",],},
  },
}"""


def test_ts_path_aliases_from_tsconfig() -> None:
    known = {"src/app/core.ts", "src/x/y/index.ts", "shared/index.ts", "src/util.ts", "web/z.ts"}
    src = (
        "import {c} from '@app/core'\nimport s from '@shared'\nimport y from '#x/y'\n"
        "import u from 'util'\nimport r from 'react'\n"
    )
    assert links("src/main.ts", src, known, {"tsconfig.json": TSCONFIG}) == [
        "shared/index.ts",
        "src/app/core.ts",
        "src/util.ts",  # baseUrl makes bare specifiers project paths
        "src/x/y/index.ts",
    ]
    # the nearest tsconfig.json above the file applies; paths without baseUrl are relative to it
    nested = {
        "tsconfig.json": TSCONFIG,
        "web/tsconfig.json": '{"compilerOptions": {"paths": {"~/*": ["*"]}}}',
    }
    assert links(
        "web/main.ts", "import z from '~/z'\nimport c from '@app/core'\n", known, nested
    ) == ["web/z.ts"]
    # an unreadable tsconfig.json is ignored
    assert project_facts({"tsconfig.json": "{oops"}).ts_configs == ()


def test_tsconfig_extends_chain() -> None:
    """`extends` is followed (relative paths, with or without .json, through several files);
    the child's baseUrl / paths override the parent's, each relative to the file setting it."""
    known = {"src/app/core.ts", "lib/shared/x.ts", "web/src/page.ts", "web/main.ts"}
    known |= {"packages/a/src/util.ts", "packages/a/main.ts", "packages/b/main.ts", "c.ts"}
    facts = {
        "tsconfig.base.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@s/*": ["lib/shared/*"]}}}',
        # inherits both from the base
        "packages/b/tsconfig.json": '{"extends": "../../tsconfig.base"}',
        # a chain: a -> web -> base; web's own paths override the base's
        "web/tsconfig.json": (
            '{"extends": "../tsconfig.base.json", "compilerOptions": {"paths": {"@/*": ["web/src/*"]}}}'
        ),
        "packages/a/tsconfig.json": (
            '{"extends": "../../web/tsconfig.json", "compilerOptions": {"baseUrl": "src"}}'
        ),
        # a package name in extends is not in the repository: nothing inherited
        "tools/tsconfig.json": '{"extends": "@tsconfig/node20/tsconfig.json"}',
    }
    src = "import a from '@s/x'\nimport b from '@/page'\nimport c from 'util'\nimport d from 'c'\n"
    assert links("packages/b/main.ts", src, known, facts) == ["c.ts", "lib/shared/x.ts"]
    assert links("web/main.ts", src, known, facts) == ["c.ts", "web/src/page.ts"]
    # a's baseUrl (src, relative to a) replaces the base's; the paths come from web, relative
    # to the baseUrl in force
    assert links("packages/a/main.ts", src, known, facts) == ["packages/a/src/util.ts"]
    assert all(c.directory != "tools" for c in project_facts(facts).ts_configs)


CARGO_WORKSPACE = {
    "Cargo.toml": (
        '[package]\nname = "tool"\n\n[[bin]]\npath = "crates/core/main.rs"\n\n'
        '[workspace]\nmembers = ["crates/matcher", "crates/searcher"]\n'
    ),
    "crates/matcher/Cargo.toml": '[package]\nname = "grep-matcher"\nversion = "0.1.0"\n',
    "crates/searcher/Cargo.toml": (
        '[package]\nname = "grep-searcher"\n\n[lib]\nname = "searcher"\npath = "lib.rs"\n'
    ),
    "crates/broken/Cargo.toml": "[package\nname = ",
}


def test_rust_workspace_crates_link_to_each_other() -> None:
    """`use other_crate::...` of a workspace member (its Cargo.toml [package] name, `-` as `_`,
    or its [lib] name and path) resolves into that crate: the module file, else its lib.rs."""
    known = {"crates/matcher/src/lib.rs", "crates/matcher/src/interpolate.rs"}
    known |= {"crates/searcher/lib.rs", "crates/searcher/sink.rs", "crates/core/main.rs"}
    src = (
        "use grep_matcher::{Matcher, interpolate::interpolate};\n"
        "use searcher::sink::Sink;\nuse serde::Serialize;\nextern crate grep_matcher;\n"
    )
    assert links("crates/core/main.rs", src, known, CARGO_WORKSPACE) == [
        "crates/matcher/src/interpolate.rs",
        "crates/matcher/src/lib.rs",
        "crates/searcher/sink.rs",
    ]
    assert project_facts(CARGO_WORKSPACE).rust_crates == {
        "tool": "src/lib.rs",
        "grep_matcher": "crates/matcher/src/lib.rs",
        "searcher": "crates/searcher/lib.rs",
    }


RUST = {"src/lib.rs", "src/a.rs", "src/a/b.rs", "src/c/mod.rs", "src/c/d.rs", "src/e.rs"}
RUST |= {"crates/core/main.rs", "crates/core/flags/mod.rs", "crates/core/flags/parse.rs"}


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        (
            "src/lib.rs",
            "mod a;\npub mod c;\n#[cfg(test)]\nmod tests {}\n",
            ["src/a.rs", "src/c/mod.rs"],
        ),
        ("src/a.rs", "pub(crate) mod b;\n", ["src/a/b.rs"]),
        ("src/c/mod.rs", "mod d;\nuse super::e::E;\n", ["src/c/d.rs", "src/e.rs"]),
        (
            "src/c/d.rs",
            "use crate::a::b::{X, Y};\nuse super::super::a;\n",
            ["src/a.rs", "src/a/b.rs"],
        ),
        (
            "src/e.rs",
            "use crate::Error;\nuse crate::{a::A, c::d};\n",
            ["src/a.rs", "src/c/d.rs", "src/lib.rs"],
        ),
        # a crate whose root is not in src/: its main.rs is the root
        ("crates/core/flags/parse.rs", "use crate::flags::Flag;\n", ["crates/core/flags/mod.rs"]),
        ("crates/core/main.rs", "mod flags;\nuse std::io;\n", ["crates/core/flags/mod.rs"]),
    ],
)
def test_rust_mod_and_use(path: str, source: str, expected: list[str]) -> None:
    assert links(path, source, RUST) == expected


def test_chunk_stage_reads_go_mod_and_package_json(git_repo) -> None:
    git_repo.commit(
        "init",
        {
            "go.mod": "module example.com/m\n",
            "a.go": "package m\n\nfunc A() {}\n",
            "b.go": 'package m\n\nimport "example.com/m/sub"\n\nfunc B() { A(); sub.S() }\n',
            "sub/s.go": "package sub\n\nfunc S() {}\n",
            "js/package.json": '{"main": "lib/main.js"}',
            "js/lib/main.js": "module.exports = 1\n",
            "test.js": "const m = require('./js')\n",
        },
    )
    run_index(git_repo.path, stages=[CHUNK], rebuild=True)
    files = Store(git_repo.path / ".strata").require_live().table("files").to_pylist()
    resolved = {r["path"]: r["imports_resolved"] for r in files}
    # Go: the files of a package that define a name the file uses (a.go uses nothing of b.go)
    assert resolved["a.go"] == []
    assert resolved["b.go"] == ["a.go", "sub/s.go"]
    assert resolved["sub/s.go"] == []
    assert resolved["test.js"] == ["js/lib/main.js"]


def test_rust_crate_paths_used_in_code_are_links() -> None:
    src = (
        "fn f() {\n    crate::a::b::g();\n    let x: crate::c::d::T;\n    // crate::e::gone()\n}\n"
    )
    assert links("src/lib.rs", src, RUST) == ["src/a/b.rs", "src/c/d.rs"]
