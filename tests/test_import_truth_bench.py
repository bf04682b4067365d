"""`benchmarks/import_truth.py`: scoring the resolver against hand-listed links, and the import
questions asked of search (`--asked`) on a repository built here."""

from __future__ import annotations

import pytest

from gitstrata.benchmarks import import_truth

pytestmark = pytest.mark.slow  # indexes a repository


def test_score_counts_links_found_missed_and_extra() -> None:
    truth = {"a.py": ["b.py", "c.py"], "b.py": []}
    got = import_truth.score(truth, {"a.py": ["b.py", "d.py"], "b.py": []})
    assert (got["links"], got["found"], got["precision"], got["recall"]) == (2, 2, 0.5, 0.5)
    assert got["misses"] == {"a.py": {"extra": ["d.py"], "missing": ["c.py"]}}


def test_asked_finds_importers_and_imports_through_search(git_repo) -> None:
    git_repo.commit(
        "feat: billing",
        {
            "billing.py": "def charge(order):\n    return order\n",
            "checkout.py": "from billing import charge\n\n\ndef pay(o):\n    return charge(o)\n",
            "shop.py": "import checkout\nimport billing\n\n\ndef run():\n    checkout.pay(1)\n",
        },
    )
    truth = {"checkout.py": ["billing.py"], "shop.py": ["billing.py", "checkout.py"]}
    got = import_truth.asked(git_repo.path, truth)
    # "Which files import billing.py?" (truth: checkout.py and shop.py) and "... checkout.py?"
    # (shop.py); "What does checkout.py import?" and "What does shop.py import?"
    assert got["full"] == {
        "importers": 2,
        "importers_recall@10": 1.0,
        "imported": 2,
        "imports_recall": 1.0,
    }
    assert set(got) == set(import_truth.MODES)
