"""`Config.load` without a config file builds the defaults without validation; they must be
exactly what validation gives (same values, same types: an index's fingerprints hash them)."""

from __future__ import annotations

import json

import pytest

from gitstrata.store.config import Config, Section


def _sections() -> list[type[Section]]:
    return [type(getattr(Config(), name)) for name in Config.model_fields]


@pytest.mark.parametrize("cls", [Config, *_sections()], ids=lambda c: c.__name__)
def test_defaults_equal_validated(cls: type[Section]) -> None:
    built, validated = cls.defaults(), cls()
    assert repr(built) == repr(validated)  # 1 and 1.0, a tuple and a list print differently
    assert json.dumps(built.model_dump(mode="json")) == json.dumps(
        validated.model_dump(mode="json")
    )
    assert built == validated


def test_load_without_file_is_the_defaults(tmp_path) -> None:
    assert repr(Config.load(tmp_path)) == repr(Config())
    assert Config.load(None) == Config()
    loaded = Config.load(tmp_path)
    assert loaded.fingerprint_payload() == Config().fingerprint_payload()


def test_config_file_is_still_validated(tmp_path) -> None:
    from gitstrata.store.errors import ConfigError

    (tmp_path / "config.json").write_text('{"retrieval": {"w_bm25": "lots"}}', encoding="utf-8")
    with pytest.raises(ConfigError, match="retrieval.w_bm25"):
        Config.load(tmp_path)
