"""The recall budget: ``prompt.recall_tokens``, its default share and its env variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie.config.file import load_config
from reverie.config.sections import RECALL_CAP, PromptConfig
from reverie.config.settings import Config
from reverie.errors import ConfigError


def test_the_default_budget_is_a_share_of_the_input_budget_with_a_cap() -> None:
    prompt = PromptConfig()

    assert prompt.recall_budget(6144) == int(6144 * 0.4)
    assert prompt.recall_budget(200_000) == RECALL_CAP


def test_by_default_recall_may_grow_to_the_cap_and_an_explicit_size_is_fixed() -> None:
    assert PromptConfig().recall_ceiling(6144) == RECALL_CAP
    assert PromptConfig().recall_ceiling(2048) == 2048
    assert PromptConfig().recall_ceiling(200_000) == RECALL_CAP
    assert PromptConfig(recall_tokens=500).recall_ceiling(6144) == 500
    assert PromptConfig(recall_tokens=0).recall_ceiling(6144) == 0


def test_an_explicit_budget_wins_and_never_exceeds_half_the_input() -> None:
    assert PromptConfig(recall_tokens=500).recall_budget(6144) == 500
    assert PromptConfig(recall_tokens=50_000).recall_budget(6144) == 3072
    assert PromptConfig(recall_tokens=0).recall_budget(6144) == 0


def test_the_key_is_read_from_toml_and_a_negative_value_is_refused() -> None:
    assert Config.from_mapping({"prompt": {"recall_tokens": 800}}).prompt.recall_tokens == 800
    with pytest.raises(ConfigError, match="recall_tokens"):
        Config.from_mapping({"prompt": {"recall_tokens": -1}})
    with pytest.raises(ConfigError, match="recall_tokens"):
        Config.from_mapping({"prompt": {"recall_tokens": "lots"}})


def test_the_env_variable_overrides_the_file(tmp_path: Path) -> None:
    (tmp_path / "reverie.toml").write_text("[prompt]\nrecall_tokens = 800\n")

    config = load_config(tmp_path, {"REVERIE_RECALL_TOKENS": "0"})

    assert config.prompt.recall_tokens == 0
