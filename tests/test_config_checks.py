"""Settings are checked for range and meaning at load (issue #14): one line naming the key."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from reverie.config.checks import RANGES
from reverie.config.file import load_config
from reverie.config.settings import Config
from reverie.errors import ConfigError


@pytest.mark.parametrize(
    ("data", "key", "says"),
    [
        ({"dream": {"keep_history": -5}}, "dream.keep_history", "from 0 to 1e+08, got -5"),
        ({"model": {"temperature": float("nan")}}, "model.temperature", "from 0 to 2, got nan"),
        ({"model": {"temperature": float("inf")}}, "model.temperature", "got inf"),
        ({"model": {"timeout_seconds": -1}}, "model.timeout_seconds", "from 0.1 to 86400"),
        ({"model": {"timeout_seconds": 0}}, "model.timeout_seconds", "got 0.0"),
        ({"model": {"max_output_tokens": -100000}}, "model.max_output_tokens", "an integer"),
        ({"memory_model": {"provider": "bogus"}}, "memory_model.provider", "openai, anthropic"),
        ({"model": {"provider": "bogus"}}, "model.provider", "got 'bogus'"),
        ({"model": {"base_url": "localhost:11434"}}, "model.base_url", "http:// or https://"),
        ({"memory_model": {"timeout_seconds": 0}}, "memory_model.timeout_seconds", "from 0.1"),
        ({"dream": {"cron": "every night"}}, "dream.cron", "a cron expression"),
        ({"dream": {"pending_trigger": 0}}, "dream.pending_trigger", "from 1"),
        ({"compaction": {"ratio": 1.0}}, "compaction.ratio", "from 0.01 to 0.99"),
        ({"prompt": {"recent_tokens": -1}}, "prompt.recent_tokens", "from 0"),
    ],
)
def test_a_value_out_of_range_names_its_key_and_the_range(
    data: dict[str, Any], key: str, says: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        Config.from_mapping(data)
    assert caught.value.key == key
    message = str(caught.value)
    assert message.startswith(key)
    assert says in message
    assert "\n" not in message


def test_every_range_holds_its_default() -> None:
    config = Config()
    for dotted, (low, high) in RANGES.items():
        section, name = dotted.split(".")
        value = getattr(getattr(config, section), name)
        assert value is None or low <= value <= high, dotted  # None: derived (recall_tokens)


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def test_an_env_override_out_of_range_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"max_output_tokens .* \(set by REVERIE_MAX_OUTPUT"):
        load_config(_workspace(tmp_path), {"REVERIE_MAX_OUTPUT_TOKENS": "-5"})


def test_a_config_path_that_is_not_a_regular_file_is_an_error(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    (root / "reverie.toml").mkdir()
    with pytest.raises(ConfigError, match="not a regular file"):
        load_config(root, {})
    (root / "reverie.toml").rmdir()
    os.mkfifo(root / "reverie.toml")
    with pytest.raises(ConfigError, match="not a regular file"):
        load_config(root, {})  # refused without opening it: reading a FIFO would block
    (root / "reverie.toml").unlink()
    (root / "reverie.toml").symlink_to(root / "nowhere.toml")
    with pytest.raises(ConfigError, match="not a regular file"):
        load_config(root, {})


def test_a_utf8_bom_is_accepted(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    (root / "reverie.toml").write_bytes(b"\xef\xbb\xbf[dream]\nkeep_history = 7\n")
    assert load_config(root, {}).dream.keep_history == 7
