"""Symbols linked in the code (`stages/links.py`): which names make a link, and how preflight
lists the links after the co-change partners on a real repository."""

from __future__ import annotations

import pyarrow as pa

from gitstrata import Strata
from gitstrata.serve.render import render_preflight
from gitstrata.stages import links
from gitstrata.store import schemas
from gitstrata.store.ids import MODULE_SYMBOL, symbol_id


def symbols(*rows: tuple[str, ...]) -> pa.Table:
    """A `symbols` table of (path, qualname, code) rows, or (path, qualname, code, kind,
    parent) for a symbol declared inside another (by default a function at the top level)."""
    cols: dict[str, list] = {f.name: [] for f in schemas.SYMBOLS}
    for i, (path, qualname, code, *nesting) in enumerate(rows):
        kind, parent = nesting or ("module" if qualname == MODULE_SYMBOL else "function", None)
        cols["symbol_id"].append(symbol_id(path, qualname))
        cols["path"].append(path)
        cols["qualname"].append(qualname)
        cols["name"].append(qualname.rpartition(".")[2])
        cols["kind"].append(kind)
        cols["parent"].append(parent)
        cols["start_line"].append(i + 1)
        cols["end_line"].append(i + 1)
        cols["signature"].append(None)
        cols["docstring"].append(None)
        cols["language"].append("markdown" if path.endswith(".md") else "python")
        cols["blob"].append("0" * 40)
        cols["code"].append(code)
    return pa.Table.from_pydict(cols, schema=schemas.SYMBOLS)


def touches(*pairs: tuple[str, str]) -> pa.Table:
    """A `touches` table holding only what `links` reads: (sha, symbol_id) rows."""
    sha, sid = zip(*pairs, strict=True) if pairs else ((), ())
    return pa.table({"sha": pa.array(sha, pa.string()), "symbol_id": pa.array(sid, pa.string())})


def pairs(table: pa.Table) -> set[tuple[str, str, str]]:
    return {
        (r["src"], r["kind"], r["dst"]) for r in table.select(["src", "kind", "dst"]).to_pylist()
    }


def test_a_name_links_when_it_says_which_symbol_is_meant() -> None:
    table = links.build(
        symbols(
            ("a.py", "charge", "def charge(x):\n    return settle(x) + refund(x)"),
            ("a.py", "settle", "def settle(x):\n    return x"),
            ("b.py", "refund", "def refund(x):\n    return x"),
            ("c.py", "helper", "def helper():\n    return refund_all() + fmt()"),
            ("d.py", "fmt", "def fmt(): pass"),
            ("e.py", "fmt", "def fmt(): pass"),
            ("d.py", "id", "def id(): pass"),
            ("c.py", MODULE_SYMBOL, "refund(1)\nid()"),
            ("README.md", MODULE_SYMBOL, "Call charge() or refund()."),
        ),
        touches(),
    )
    a, s, r = symbol_id("a.py", "charge"), symbol_id("a.py", "settle"), symbol_id("b.py", "refund")
    c = symbol_id("c.py", MODULE_SYMBOL)
    assert pairs(table) == {
        (a, "calls", s),  # same file
        (a, "calls", r),  # the one symbol of the repository named so
        (s, "called_by", a),
        (r, "called_by", a),
        (c, "calls", r),  # a code file's top-level code calls what it names
        (r, "called_by", c),
    }
    # `fmt` names two symbols and `refund_all` none; `id` is too short to say; prose calls
    # nothing
    assert table.schema.equals(schemas.SYMBOL_LINKS)


def test_product_code_names_no_test_or_example_by_a_name_of_elsewhere() -> None:
    # express's `res.sendFile` says "create file stream" in a comment, and the only `create` of
    # the repository is an example's handler: product code calls no example and no test
    table = links.build(
        symbols(
            ("lib/send.py", "send_file", "def send_file(p):\n    # create file stream\n    x"),
            ("examples/app/views.py", "create", "def create(req):\n    send_file(req)"),
            ("tests/test_send.py", "check_stream", "def check_stream(): pass"),
            ("lib/serve.py", "serve", "def serve():\n    check_stream()"),
            ("tests/test_send.py", "test_send", "def test_send():\n    send_file(1)"),
            ("tests/util.py", "fixture_path", "def fixture_path():\n    create()"),
        ),
        touches(),
    )
    send, create = (
        symbol_id("lib/send.py", "send_file"),
        symbol_id("examples/app/views.py", "create"),
    )
    test, util = (
        symbol_id("tests/test_send.py", "test_send"),
        symbol_id("tests/util.py", "fixture_path"),
    )
    calls = {(a, b) for a, kind, b in pairs(table) if kind == "calls"}
    # the example and the test call the product; a test's helper may name an example
    assert calls == {(create, send), (test, send), (util, create)}


def test_a_local_function_is_named_only_from_inside_its_function() -> None:
    # express's `res.sendFile` reads `this.app`; the only symbol named `app` is a local of
    # `createApplication` in another file, which no code outside that function can reach
    table = links.build(
        symbols(
            ("lib/express.js", "createApplication", "function createApplication() { app() }"),
            (
                "lib/express.js",
                "createApplication.app",
                "var app = function(req) {}",
                "function",
                "createApplication",
            ),
            (
                "lib/express.js",
                "createApplication.app.init",
                "function init() { app() }",
                "function",
                "createApplication.app",
            ),
            ("lib/express.js", "mixin", "function mixin() { return app }"),
            ("lib/response.js", "sendFile", "function sendFile() { this.app.enabled() }"),
            ("lib/cart.py", "Cart", "class Cart: ...", "class", None),
            ("lib/cart.py", "Cart.total", "def total(self): ...", "method", "Cart"),
            ("lib/cart.py", "Cart.total.rounded", "def rounded(x): ...", "function", "Cart.total"),
            ("lib/shop.py", "checkout", "def checkout(cart):\n    cart.total()\n    rounded(1)"),
        ),
        touches(),
    )
    sid = {
        q: symbol_id(p, q)
        for p, q in (
            ("lib/express.js", "createApplication"),
            ("lib/express.js", "createApplication.app"),
            ("lib/express.js", "createApplication.app.init"),
            ("lib/cart.py", "Cart.total"),
            ("lib/shop.py", "checkout"),
        )
    }
    calls = {(a, b) for a, kind, b in pairs(table) if kind == "calls"}
    app = sid["createApplication.app"]
    # its own function and the code nested in it name the local; another function of the
    # file and another file's `this.app` do not
    assert {a for a, b in calls if b == app} == {
        sid["createApplication"],
        sid["createApplication.app.init"],
    }
    # a method is reached from anywhere through its object; a method's local helper is not
    assert {b for a, b in calls if a == sid["checkout"]} == {sid["Cart.total"]}


def test_a_private_member_is_named_with_its_hash() -> None:
    # ky's `Ky.#fetch` calls `this.#calculateDelay()`: the method's name keeps its `#`
    table = links.build(
        symbols(
            ("source/Ky.ts", "Ky", "class Ky { ... }", "class", None),
            ("source/Ky.ts", "Ky.#calculateDelay", "#calculateDelay() {}", "method", "Ky"),
            (
                "source/Ky.ts",
                "Ky.#fetch",
                "async #fetch() { this.#calculateDelay() }",
                "method",
                "Ky",
            ),
            ("source/retry.ts", "calculateDelay", "function calculateDelay() {}"),
        ),
        touches(),
    )
    fetch = symbol_id("source/Ky.ts", "Ky.#fetch")
    calls = {b for a, kind, b in pairs(table) if kind == "calls" and a == fetch}
    # the private method, not the function of another file that has its name without `#`
    assert calls == {symbol_id("source/Ky.ts", "Ky.#calculateDelay")}


def test_short_names_own_name_and_nesting() -> None:
    table = links.build(
        symbols(
            ("a.py", "Cart", "class Cart:\n    def total(self):\n        return run(self)"),
            ("a.py", "Cart.total", "def total(self):\n    return run(self)"),
            ("a.py", "run", "def run(cart):\n    return run(cart.rest) or cart.total()"),
            ("a.py", "go", "def go(): run(1)"),
        ),
        touches(),
    )
    cart, total, run = (symbol_id("a.py", q) for q in ("Cart", "Cart.total", "run"))
    got = pairs(table)
    assert (cart, "calls", total) in got  # a class names what its methods name, and them
    assert (cart, "calls", run) in got and (total, "calls", run) in got
    assert (run, "calls", total) in got and (total, "called_by", run) in got
    assert not any(src == dst for src, _, dst in got)  # `run` naming itself links nothing
    assert symbol_id("a.py", "go") not in {src for src, _, _ in got}  # a two-letter name


def test_dst_commits_counts_the_commits_that_touched_it() -> None:
    table = links.build(
        symbols(("a.py", "one", "def one(): two()"), ("a.py", "two", "def two(): pass")),
        touches(
            ("c1", symbol_id("a.py", "two")),
            ("c2", symbol_id("a.py", "two")),
            ("c2", symbol_id("a.py", "two")),
            ("c3", symbol_id("a.py", "one")),
        ),
    )
    got = {(r["kind"], r["dst_qualname"]): r["dst_commits"] for r in table.to_pylist()}
    assert got == {("calls", "two"): 2, ("called_by", "one"): 1}


def test_links_are_bounded_per_symbol() -> None:
    many = [(f"h{i:03}.py", f"handler{i:03}", "def h(): pass") for i in range(60)]
    code = "def dispatch():\n" + "\n".join(f"    handler{i:03}()" for i in range(60))
    table = links.build(symbols(("a.py", "dispatch", code), *many), touches())
    calls = [r for r in table.to_pylist() if r["kind"] == "calls"]
    assert len(calls) == links.MAX_LINKS
    assert {r["dst_qualname"] for r in calls} == {f"handler{i:03}" for i in range(links.MAX_LINKS)}


def test_preflight_lists_callers_and_callees_after_co_change_partners(git_repo, tmp_path) -> None:
    git_repo.commit(
        "feat: billing",
        {
            "billing.py": "def charge(order):\n    return round_cents(order.total)\n\n\n"
            "def round_cents(x):\n    return round(x, 2)\n\n\n"
            "def audit(order):\n    return order\n",
            "checkout.py": "from billing import charge\n\n\ndef checkout(order):\n"
            "    return charge(order)\n",
        },
    )
    for n in range(2):  # charge and audit change together twice: a co-change partner
        git_repo.commit(
            f"fix: charge and audit ({n})",
            {
                "billing.py": "def charge(order):\n"
                f"    return round_cents(order.total) + {n}\n\n\n"
                "def round_cents(x):\n    return round(x, 2)\n\n\n"
                f"def audit(order):\n    return order or {n}\n",
            },
        )
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        report = strata.preflight("billing.py", "charge")
        got = [(c.path, c.symbol, c.co_commits > 0, c.link) for c in report.symbol_coupling]
        # links by the commits that touched them (one each), then by path
        assert got == [
            ("billing.py", "audit", True, None),
            ("billing.py", "round_cents", False, "callee"),
            ("checkout.py", "checkout", False, "caller"),
        ]
        text = render_preflight(report, budget=None)
        assert "checkout.py::checkout  caller: its code names the target" in text
        assert "billing.py::round_cents  callee: the target's code names it" in text
        # the symbol a caller names is listed for it too
        back = strata.preflight("checkout.py", "checkout")
        assert [(c.symbol, c.link) for c in back.symbol_coupling] == [("charge", "callee")]


def test_a_class_and_its_methods_are_container_and_member_not_caller_and_callee(
    git_repo, tmp_path
) -> None:
    git_repo.commit(
        "feat: cart",
        {
            "cart.py": "class Cart:\n    def total(self):\n        return sum(self.items)\n\n"
            "    def checkout(self):\n        return pay(self.total())\n\n\n"
            "def pay(amount):\n    return amount\n",
        },
    )
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        method = strata.preflight("cart.py", "Cart.checkout")
        links = {c.symbol: c.link for c in method.symbol_coupling}
        # the class declares the method (its code names it): the container, not a caller
        assert links == {"Cart": "container", "Cart.total": "callee", "pay": "callee"}
        text = render_preflight(method, budget=None)
        assert "cart.py::Cart  container: the target is declared inside it" in text
        whole = strata.preflight("cart.py", "Cart")
        links = {c.symbol: c.link for c in whole.symbol_coupling}
        assert links["Cart.checkout"] == links["Cart.total"] == "member"
        assert "cart.py::Cart.total  member: declared inside the target" in render_preflight(
            whole, budget=None
        )


def test_a_new_commit_reuses_the_links_when_the_code_is_the_same(git_repo, tmp_path) -> None:
    git_repo.commit(
        "feat: billing",
        {
            "billing.py": "def charge(order):\n    return round_cents(order)\n\n\n"
            "def round_cents(x):\n    return round(x, 2)\n",
            "notes.txt": "shop\n",
        },
    )
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:

        def links_run() -> tuple[dict, list[tuple[str, str, int]]]:
            report = strata.index()
            [stage] = [s for s in report.stages if s.name == "links"]
            rows = strata.engine.index.table("symbol_links").to_pylist()
            return stage.stats, sorted(
                (r["kind"], r["dst_qualname"], r["dst_commits"]) for r in rows
            )

        stats, rows = links_run()
        assert stats["reused"] is False
        assert rows == [("called_by", "charge", 1), ("calls", "round_cents", 1)]
        git_repo.commit("docs: notes", {"notes.txt": "shop\nbilling\n"})
        stats, again = links_run()
        assert stats["reused"] is True and again == rows
        git_repo.commit(
            "fix: round half up",
            {
                "billing.py": "def charge(order):\n    return round_cents(order)\n\n\n"
                "def round_cents(x):\n    return round(x + 0.001, 2)\n",
            },
        )
        stats, rows = links_run()  # new code: links made again, round_cents counted twice
        assert stats["reused"] is False
        assert rows == [("called_by", "charge", 1), ("calls", "round_cents", 2)]


def test_search_asked_what_else_changes_with_a_function_lists_its_partners(
    git_repo, tmp_path
) -> None:
    billing = (
        "def charge(order):\n    return round_cents(order.total) + {n}\n\n\n"
        "def round_cents(x):\n    return round(x, 2)\n\n\n"
        "def audit(order):\n    return order or {n}\n"
    )
    git_repo.commit(
        "feat: billing",
        {
            "billing.py": billing.format(n=0),
            "checkout.py": "from billing import charge\n\n\ndef checkout(order):\n"
            "    return charge(order)\n",
            "docs/guide.md": "# Guide\n\nHow to charge an order.\n",
        },
    )
    for n in (1, 2):
        git_repo.commit(f"fix: charge and audit ({n})", {"billing.py": billing.format(n=n)})
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        hits = strata.search("What else has to change when I change charge()?", top_k=6).hits
        symbols = [(h.path, h.symbol) for h in hits if h.kind == "symbol"]
        # the function, then its partners in preflight's order (the co-change partner, the
        # callee, the caller), a file partner of billing.py's between them
        assert symbols[0] == ("billing.py", "charge")
        listed = [s for s in symbols[1:] if s[1] != "<module>"][:3]
        assert listed == [
            ("billing.py", "audit"),
            ("billing.py", "round_cents"),
            ("checkout.py", "checkout"),
        ]
        # named in words or in backticks: the same answer
        for asked in ("the charge function", "`charge`"):
            again = strata.search(f"What else has to change when I change {asked}?", top_k=6)
            assert [(h.path, h.symbol) for h in again.hits if h.kind == "symbol"] == symbols


def test_search_asked_what_calls_a_function_lists_its_callers(git_repo, tmp_path) -> None:
    git_repo.commit(
        "feat: billing",
        {
            "billing.py": "def charge(order):\n    return round_cents(order.total)\n\n\n"
            "def round_cents(x):\n    return round(x, 2)\n",
            "checkout.py": "from billing import charge\n\n\nclass Checkout:\n"
            "    def pay(self, order):\n        return charge(order)\n\n"
            "    def close(self):\n        return None\n",
            "tests/test_billing.py": "from billing import charge\n\n\n"
            "def test_charge():\n    assert charge(1)\n",
            "ky.ts": "export class Ky {\n  #delay() {\n    return 1;\n  }\n\n"
            "  async fetch() {\n    return this.#delay();\n  }\n}\n",
        },
    )
    git_repo.commit("fix: charge rounds the total", {"README.md": "# Billing\n\ncharge() bills.\n"})
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        for asked in (
            "What calls charge()?",
            "Where is charge used?",
            "callers of charge",
            "what calls charge in billing.py?",
        ):
            hits = strata.search(asked, top_k=6).hits
            found = [(h.path, h.symbol) for h in hits[:2]]
            # product code first, then the test; the method, not the class around it
            assert found == [
                ("checkout.py", "Checkout.pay"),
                ("tests/test_billing.py", "test_charge"),
            ]
            assert ("checkout.py", "Checkout") not in [(h.path, h.symbol) for h in hits]
        callees = strata.search("What does charge() call?", top_k=6).hits
        assert (callees[0].path, callees[0].symbol) == ("billing.py", "round_cents")
        # a private member, asked for without its `#` as a question writes it
        private = strata.search("What calls Ky.delay?", top_k=6).hits
        assert (private[0].path, private[0].symbol) == ("ky.ts", "Ky.fetch")
        # a file's importers and imports, from the index's import resolution
        importers = strata.search("Which files import billing.py?", top_k=6).hits
        assert [(h.path, h.symbol) for h in importers[:2]] == [
            ("checkout.py", "<module>"),
            ("tests/test_billing.py", "<module>"),
        ]
        imported = strata.search("What does checkout.py import?", top_k=6).hits
        assert (imported[0].path, imported[0].symbol) == ("billing.py", "<module>")
        # the baselines rank every document alike
        plain = strata.search("What calls charge()?", top_k=6, mode="bm25").hits
        assert (plain[0].path, plain[0].symbol) != ("checkout.py", "Checkout.pay")


def test_what_a_function_calls_is_listed_in_the_order_it_calls_them(git_repo, tmp_path) -> None:
    # `refund` changed most, but `settle` calls `validate` first and only mentions `refund`
    lib = (
        "def settle(order):\n    # a refund is handled elsewhere\n"
        "    validate(order)\n    return charge(order)\n\n\n"
        "def validate(order):\n    return order\n\n\n"
        "def charge(order):\n    return order\n\n\n"
        "def refund(order):\n    return -{n}\n"
    )
    git_repo.commit("feat: settle", {"billing.py": lib.format(n=0)})
    for n in (1, 2):
        git_repo.commit(f"fix: refund ({n})", {"billing.py": lib.format(n=n)})
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        hits = strata.search("What does settle() call?", top_k=6).hits
        assert [h.symbol for h in hits[:3]] == ["validate", "charge", "refund"]
