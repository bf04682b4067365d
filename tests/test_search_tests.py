"""A question for the tests of something ("which tests cover X") answered with test code alone:
the test files that change with X's file and those BM25 finds for the question, fused."""

from __future__ import annotations

from gitstrata import Strata
from gitstrata.serve.render import render_preflight

CART = "def total(items):\n    return sum(items) - {n}\n\n\ndef discount(x):\n    return x\n"
TEST_CART = "from lib.cart import total\n\n\ndef test_total():\n    assert total([1]) == {n}\n"
PRICING = "from lib.cart import discount\n\n\ndef test_pricing():\n    assert discount({n})\n"


def _cart_history(git_repo, fixes: int, pricing_in: int | None = None, **extra: str) -> None:
    """A cart, its test and a pricing test, then `fixes` commits changing the cart with its
    test (and the pricing test in fix `pricing_in`); `extra` files come with the first."""
    git_repo.commit(
        "feat: cart",
        {
            "lib/cart.py": CART.format(n=0),
            "tests/test_cart.py": TEST_CART.format(n=1),
            "tests/test_pricing.py": PRICING.format(n=0),
            **extra,
        },
    )
    for n in range(1, fixes + 1):
        files = {"lib/cart.py": CART.format(n=n), "tests/test_cart.py": TEST_CART.format(n=n)}
        if n == pricing_in:
            files["tests/test_pricing.py"] = PRICING.format(n=n)
        git_repo.commit(f"fix: cart total ({n})", files)


def test_which_tests_cover_a_function_lists_test_code_alone(git_repo, tmp_path) -> None:
    # the cart's tests change with it; the pricing test once
    _cart_history(
        git_repo,
        3,
        pricing_in=2,
        **{
            "tests/test_slow.py": "def test_sleep():\n    assert True\n",
            "README.md": "# Cart\n\nThe total of a cart is tested in the test suite.\n",
        },
    )
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        for asked in (
            "Which tests cover total()?",
            "What tests should I run after changing total()?",
        ):
            hits = strata.search(asked, top_k=10).hits
            assert hits, asked
            assert {h.kind for h in hits} == {"symbol"}, asked  # no commit, failure or memory
            paths = list(dict.fromkeys(h.path for h in hits))
            assert all(p.startswith("tests/") for p in paths), (asked, paths)
            assert paths[:2] == ["tests/test_cart.py", "tests/test_pricing.py"], (asked, paths)
        # the same question of the baselines is answered as before: every kind of document
        plain = strata.search("Which tests cover total()?", top_k=10, mode="bm25").hits
        assert any(h.kind == "commit" or not (h.path or "").startswith("tests/") for h in plain)
        # not a question for tests: the function and its history as before
        why = strata.search("why does total() subtract n", top_k=10).hits
        assert any(h.path == "lib/cart.py" for h in why)


def test_preflight_lists_the_tests_to_run_after_a_change(git_repo, tmp_path) -> None:
    _cart_history(git_repo, 2)
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        report = strata.preflight("lib/cart.py", "total")
        assert [(t.path, t.co_commits) for t in report.tests][:2] == [
            ("tests/test_cart.py", 2),
            ("tests/test_pricing.py", 1),
        ]
        block = render_preflight(report)
        assert (
            "<tests_to_run>\n  tests/test_cart.py  changes with lib/cart.py (co-commits=2)" in block
        )
        # a test's own preflight lists none
        assert strata.preflight("tests/test_cart.py", "test_total").tests == []


def test_tests_to_run_leave_out_fixtures_and_helpers(git_repo, tmp_path) -> None:
    # the cart's fixture and the suite's shared helpers change with the cart more often than
    # its test does, yet neither is a test anyone runs
    git_repo.commit(
        "feat: cart",
        {
            "lib/cart.py": CART.format(n=0),
            "tests/test_cart.py": TEST_CART.format(n=1),
            "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef cart():\n    return [0]\n",
            "tests/fixtures/cart.json": '{"total": 0}\n',
        },
    )
    for n in range(1, 4):
        files = {
            "lib/cart.py": CART.format(n=n),
            "tests/fixtures/cart.json": f'{{"total": {n}}}\n',
            "tests/conftest.py": f"import pytest\n\n\n@pytest.fixture\ndef cart():\n    return [{n}]\n",
        }
        if n == 3:
            files["tests/test_cart.py"] = TEST_CART.format(n=n)
        git_repo.commit(f"fix: cart total ({n})", files)
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        partners = [c.path for c in strata.preflight("lib/cart.py", "total").coupling]
        assert {"tests/fixtures/cart.json", "tests/conftest.py"} <= set(partners)
        assert [t.path for t in strata.preflight("lib/cart.py", "total").tests] == [
            "tests/test_cart.py"
        ]
        hits = strata.search("Which tests cover total()?", top_k=10).hits
        assert [h.path for h in hits][:1] == ["tests/test_cart.py"]
        assert not {h.path for h in hits} & {"tests/fixtures/cart.json", "tests/conftest.py"}


def test_a_test_whose_code_calls_the_function_comes_before_a_partner_that_does_not(
    git_repo, tmp_path
) -> None:
    # test_misc changes with the cart's discount every time but never calls total();
    # test_receipt never changed with the cart, and two of its tests call total()
    cart = "def total(items):\n    return sum(items)\n\n\ndef discount(x):\n    return x - {n}\n"
    misc = "def test_misc():\n    assert {n}\n"
    git_repo.commit("feat: cart", {"lib/cart.py": cart.format(n=0)})
    for n in (1, 2, 3):
        git_repo.commit(
            f"fix: discount ({n})",
            {"lib/cart.py": cart.format(n=n), "tests/test_misc.py": misc.format(n=n)},
        )
    git_repo.commit(
        "test: receipts",
        {
            "tests/test_receipt.py": "from lib.cart import total\n\n\n"
            "def test_one():\n    assert total([1])\n\n\n"
            "def test_two():\n    assert total([2])\n"
        },
    )
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        listed = [t.path for t in strata.preflight("lib/cart.py", "total").tests]
        assert listed[:2] == ["tests/test_receipt.py", "tests/test_misc.py"]
        hits = strata.search("Which tests cover total()?", top_k=10).hits
        assert [h.path for h in hits][:1] == ["tests/test_receipt.py"]


def test_a_test_named_after_the_function_comes_first(git_repo, tmp_path) -> None:
    """`test/res.status.js` tests `res.status`, though `test/res.send.js` changes with the
    file more often and calls `res.status` in more places."""
    response = (
        "var res = module.exports = {{}};\n\n"
        "res.status = function status(code) {{\n  this.statusCode = code + {n};\n  return this;\n}};\n\n"
        "res.send = function send(body) {{\n  this.status(200);\n  return body;\n}};\n"
    )
    send_test = (
        "var res = require('../lib/response');\n\n"
        "it('sends', function () {{ res.send('a'); res.status(200); res.status(201); }});\n"
        "it('sends {n}', function () {{ res.send('b'); res.status(404); }});\n"
    )
    status_test = (
        "var res = require('../lib/response');\n\nit('sets', function () { res.status(1); });\n"
    )
    git_repo.commit(
        "feat: responses",
        {
            "lib/response.js": response.format(n=0),
            "test/res.send.js": send_test.format(n=0),
            "test/res.status.js": status_test,
        },
    )
    for n in (1, 2, 3):
        git_repo.commit(
            f"fix: send ({n})",
            {"lib/response.js": response.format(n=n), "test/res.send.js": send_test.format(n=n)},
        )
    with Strata(git_repo.path, index_dir=tmp_path / "idx") as strata:
        strata.index()
        hits = strata.search("Which tests cover res.status?", top_k=10).hits
        assert [h.path for h in hits][:2] == ["test/res.status.js", "test/res.send.js"]
        listed = [t.path for t in strata.preflight("lib/response.js", "res.status").tests]
        assert listed[:2] == ["test/res.status.js", "test/res.send.js"]
        # a test named after another function of the file is not put first for this one
        listed = [t.path for t in strata.preflight("lib/response.js", "res.send").tests]
        assert listed[:1] == ["test/res.send.js"]
