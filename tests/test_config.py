from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reverie.config.file import config_text, load_config
from reverie.config.sections import PROMPT_MARGIN, ModelConfig, prompt_room
from reverie.config.settings import Config
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
        ({"model": {"context_window": 1200}}, "model.context_window"),
        ({"model": {"context_window": 4096, "max_output_tokens": 4096}}, "model.context_window"),
        ({"model": {"temperature": "warm"}}, "model.temperature"),
        ({"model": {"base_url": 8080}}, "model.base_url"),
        ({"model": {"provider": 1}}, "model.provider"),
        ({"dream": {"cron": True}}, "dream.cron"),
        ({"dream": {"cron": ["0 3 * * *"]}}, "dream.cron"),
        ({"prompt": {"unified_session": 1}}, "prompt.unified_session"),
        ({"prompt": {"recall_tokens": 1.5}}, "prompt.recall_tokens"),
        ({"compaction": {"idle_minutes": "15"}}, "compaction.idle_minutes"),
        ({"serve": {"unknown_principals": "ask"}}, "serve.unknown_principals"),
        ({"serve": {"unknown_principals": False}}, "serve.unknown_principals"),
    ],
)
def test_bad_config_names_the_key(data: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Config.from_mapping(data)
    assert caught.value.key == key


def test_values_are_checked_against_the_field_types_not_their_names() -> None:
    config = Config.from_mapping(
        {
            "model": {"base_url": "http://localhost:8080/v1", "timeout_seconds": 30},
            "prompt": {"recall_tokens": 0},
            "compaction": {"idle_minutes": 0},
        }
    )
    assert config.model.timeout_seconds == 30.0
    assert isinstance(config.model.timeout_seconds, float)
    assert config.prompt.recall_tokens == 0
    assert isinstance(config.compaction.idle_minutes, float)


def test_the_budget_is_computed_in_one_place() -> None:
    model = ModelConfig(context_window=8_000, max_output_tokens=1_000)
    assert model.input_budget == model.input_budget_for(1_000) == 8_000 - 1_000 - PROMPT_MARGIN
    assert model.input_budget_for(3_000) == 8_000 - 3_000 - PROMPT_MARGIN
    assert model.input_budget_for(10_000) == 1  # never zero or less
    assert prompt_room(8_000, 10_000) < 0  # what the window check refuses


def _load(tmp_path: Path, toml: str, **environ: str) -> Config:
    (tmp_path / "reverie.toml").write_text(toml, encoding="utf-8")
    return load_config(tmp_path, environ)


def test_the_init_template_changes_nothing(tmp_path: Path) -> None:
    env = {"REVERIE_MODEL": "gpt-x", "REVERIE_BASE_URL": "http://127.0.0.1:9/v1"}
    written = _load(tmp_path, config_text(), **env)
    (tmp_path / "reverie.toml").unlink()
    assert written == load_config(tmp_path, env)
    assert written.memory_model is None
    assert written.memory.model == "gpt-x"
    assert written.memory.base_url == "http://127.0.0.1:9/v1"


def test_a_memory_model_without_a_name_changes_keys_of_the_chat_model(tmp_path: Path) -> None:
    config = _load(
        tmp_path,
        '[model]\nmodel = "big"\ncontext_window = 32000\n[memory_model]\ntemperature = 0.0\n',
    )
    assert config.memory.model == "big"
    assert config.memory.context_window == 32000
    assert config.memory.temperature == 0.0
    assert config.model.temperature == 0.3


def test_a_named_memory_model_shares_only_the_endpoint(tmp_path: Path) -> None:
    config = _load(
        tmp_path,
        '[model]\nmodel = "big"\nbase_url = "http://h/v1"\ncontext_window = 32000\n',
        REVERIE_MEMORY_MODEL="small",
    )
    assert (config.memory.model, config.memory.base_url) == ("small", "http://h/v1")
    assert config.memory.context_window == ModelConfig().context_window


@pytest.mark.parametrize(
    ("window", "output"), [(4096, 1024), (8192, 2048), (16_384, 4096), (128_000, 4096)]
)
def test_the_output_cap_is_derived_from_the_window(window: int, output: int) -> None:
    config = Config.from_mapping({"model": {"context_window": window}})
    assert config.model.max_output_tokens == output
    assert config.model.input_budget == window - output - 1024


def test_a_4096_token_window_alone_is_enough(tmp_path: Path) -> None:
    config = load_config(tmp_path, {"REVERIE_CONTEXT_WINDOW": "4096", "REVERIE_MODEL": "m"})
    assert (config.model.max_output_tokens, config.model.input_budget) == (1024, 2048)
    assert config.memory.max_output_tokens == 1024


def test_conflicting_explicit_values_name_both_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(
            tmp_path, {"REVERIE_CONTEXT_WINDOW": "4096", "REVERIE_MAX_OUTPUT_TOKENS": "4096"}
        )
    message = str(caught.value)
    assert "context_window (4096)" in message
    assert "max_output_tokens (4096)" in message
    assert "raise context_window" in message
    assert "lower max_output_tokens" in message


def test_a_window_too_small_for_the_derived_cap_says_so() -> None:
    with pytest.raises(ConfigError, match=r"memory_model.context_window \(1000\) is too small"):
        Config.from_mapping({"memory_model": {"model": "m", "context_window": 1000}})


def test_serve_creates_unknown_principals_unless_told_to_refuse() -> None:
    assert Config().serve.unknown_principals == "create"
    refusing = Config.from_mapping({"serve": {"unknown_principals": "refuse"}})
    assert refusing.serve.unknown_principals == "refuse"


def test_mcp_person_notes_is_off_unless_set() -> None:
    assert Config().mcp.person_notes is False
    assert Config.from_mapping({"mcp": {"person_notes": True}}).mcp.person_notes is True
