"""The ``mcp`` and ``serve`` commands' own decisions, in process."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from reverie import MemoryEngine
from reverie.cli import app
from reverie.cli import reach_commands as commands
from reverie.cli.failure import CommandFailedError
from reverie.config import Config, ModelConfig
from tests.cli.conftest import clean_env


def test_reverie_mcp_ends_when_its_client_closes_stdin(tmp_path: Path) -> None:
    env = clean_env(tmp_path, tmp_path / "ws")
    result = CliRunner().invoke(app, ["mcp"], env=env, input="")
    assert result.exit_code == 0, result.output
    assert result.stdout == ""  # stdout belongs to the protocol
    assert (tmp_path / "ws" / "SOUL.md").exists()


def test_the_upstream_is_the_configured_openai_compatible_model(tmp_path: Path) -> None:
    configured = Config(model=ModelConfig(model="m", base_url="http://127.0.0.1:1/v1"))
    with MemoryEngine.open(tmp_path / "a", configured, environ={}) as engine:
        upstream = commands._upstream(engine)
        assert upstream is not None
        assert (upstream.base_url, upstream.model) == ("http://127.0.0.1:1/v1", "m")
    with MemoryEngine.open(tmp_path / "b", environ={}) as engine:
        assert commands._upstream(engine) is None
    anthropic = Config(model=ModelConfig(model="claude", provider="anthropic"))
    with (
        MemoryEngine.open(tmp_path / "c", anthropic, environ={}) as engine,
        pytest.raises(CommandFailedError, match="OpenAI-compatible"),
    ):
        commands._upstream(engine)


def test_the_viewer_is_mounted_only_when_installed(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path / "ws", environ={}) as engine:
        mounts = commands._mounts(engine, "t")
    assert len(mounts) <= 1


def test_a_missing_sdk_names_the_extra() -> None:
    with pytest.raises(CommandFailedError, match=r"reverie\[serve\]"):
        commands._require("reverie_no_such_module")
