from __future__ import annotations

from typing import Any

import pytest

from reverie.config import Config
from reverie.errors import ConfigError


def test_defaults_follow_the_design_table() -> None:
    config = Config()
    assert config.compaction.ratio == 0.5
    assert config.compaction.rounds_per_turn == 5
    assert config.compaction.replay_suffix == 8
    assert (config.compaction.summary_cap_chars, config.compaction.raw_cap_chars) == (8000, 16000)
    assert (config.dream.batch_entries, config.dream.entry_chars, config.dream.file_chars) == (
        20,
        1000,
        8000,
    )
    assert (config.prompt.recent_entries, config.prompt.recent_tokens) == (50, 8000)
    assert config.compaction.idle_minutes == 15
    assert config.dream.keep_history == 1000
    assert not config.model.configured
    assert config.model.input_budget == 128_000 - 4_096 - 1024
    assert config.memory is config.model


def test_a_toml_mapping_becomes_values() -> None:
    config = Config.from_mapping(
        {
            "model": {"model": "gpt-x", "context_window": 32000, "temperature": 1},
            "memory_model": {"model": "small"},
            "prompt": {"unified_session": True},
            "dream": {"cron": "0 3 * * *", "mode": "model-free"},
        }
    )
    assert config.model.model == "gpt-x"
    assert config.model.temperature == 1.0
    assert config.memory.model == "small"
    assert config.prompt.unified_session is True
    assert config.dream.cron == "0 3 * * *"


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"modle": {}}, "modle"),
        ({"model": {"contxt_window": 5}}, "model.contxt_window"),
        ({"model": {"context_window": "big"}}, "model.context_window"),
        ({"model": {"context_window": True}}, "model.context_window"),
        ({"model": "x"}, "model"),
        ({"compaction": {"ratio": 1.5}}, "compaction.ratio"),
        ({"dream": {"mode": "sometimes"}}, "dream.mode"),
        ({"model": {"context_window": 2000}}, "model.context_window"),
    ],
)
def test_bad_config_names_the_key(data: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Config.from_mapping(data)
    assert caught.value.key == key
