"""Expected errors print one clear line on stderr and exit non-zero, never with a traceback."""

from __future__ import annotations

import socket

import pytest

from reverie.config.file import config_text
from reverie.llm.openai_provider import OpenAIProvider
from reverie.llm.retry import RetryPolicy
from tests.cli.conftest import Cli


def _one_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_ask_without_a_model_says_how_to_configure_one(cli: Cli) -> None:
    proc = cli.run("ask", "hello", expect=1)
    assert "REVERIE_MODEL" in _one_line(proc.stderr)
    assert proc.stdout == ""


def test_chat_without_a_model_fails_before_the_prompt(cli: Cli) -> None:
    proc = cli.run("chat", expect=1, stdin="")
    assert "REVERIE_MODEL" in _one_line(proc.stderr)


def test_an_unreachable_endpoint_is_one_line_after_the_retries(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The command runs in this process: the provider's default sleep records the backoff
    # waits instead of sleeping them (some 4 s), so the retries are seen, not waited for.
    waits: list[float] = []
    defaults = OpenAIProvider.__init__.__kwdefaults__
    assert defaults is not None
    monkeypatch.setitem(defaults, "sleep", waits.append)
    cli.env.update(REVERIE_MODEL="m", REVERIE_BASE_URL=f"http://127.0.0.1:{_closed_port()}/v1")
    line = _one_line(cli.run("ask", "hello", expect=1).stderr)
    assert "cannot reach" in line
    assert "REVERIE_BASE_URL" in line
    assert len(waits) == RetryPolicy().max_attempts - 1, f"retried with waits {waits}"


def test_a_bad_revision_is_one_line(cli: Cli) -> None:
    cli.run("init")
    assert "deadbeef" in _one_line(cli.run("show", "deadbeef", expect=1).stderr)
    assert "HEAD~9" in _one_line(cli.run("restore", "HEAD~9", expect=1).stderr)


def test_a_missing_workspace_is_one_line(cli: Cli) -> None:
    for command in (["status"], ["log"], ["doctor"], ["history"], ["dream"]):
        line = _one_line(cli.run(*command, expect=1).stderr)
        assert "reverie init" in line
    assert not cli.workspace.exists()


def test_a_config_error_names_the_variable(cli: Cli) -> None:
    cli.run("init")
    cli.env["REVERIE_CONTEXT_WINDOW"] = "lots"
    assert "REVERIE_CONTEXT_WINDOW" in _one_line(cli.run("status", expect=1).stderr)


def test_init_writes_the_commented_config_and_never_overwrites_it(cli: Cli) -> None:
    out = cli.run("init").stdout
    config = cli.workspace / "reverie.toml"
    assert config.read_text(encoding="utf-8") == config_text()
    assert str(config) in out
    config.write_text("[model]\nmodel = 'mine'\n", encoding="utf-8")
    assert "already exists" in _one_line(cli.run("init", expect=1).stderr)
    assert "already exists" in _one_line(cli.run("init", str(cli.workspace), expect=1).stderr)
    assert config.read_text(encoding="utf-8") == "[model]\nmodel = 'mine'\n"


def test_doctor_passes_a_healthy_workspace_and_catches_a_planted_corruption(cli: Cli) -> None:
    cli.run("init")
    assert cli.json("doctor")["ok"] is True
    (cli.workspace / "memory" / ".dream_cursor").write_text("99", encoding="utf-8")
    proc = cli.run("doctor", expect=1)
    assert "dream cursor 99" in proc.stdout
    assert "Traceback" not in proc.stderr
    report = cli.json("doctor", expect=1)
    assert report["ok"] is False
    assert any(f["severity"] == "problem" and f["check"] == "cursors" for f in report["findings"])


def test_doctor_notes_alone_exit_zero(cli: Cli) -> None:
    cli.run("init")
    (cli.workspace / "USER.md").write_text("# User\n- hand edit\n", encoding="utf-8")
    proc = cli.run("doctor")
    assert "note" in proc.stdout
    assert "uncommitted" in proc.stdout


def test_a_limit_out_of_range_is_a_usage_error_not_a_traceback(cli: Cli) -> None:
    cli.run("init")
    proc = cli.run("search", "x", "--limit", "99999999999999999999", expect=2)
    assert "less than or equal to 1000000" in " ".join(proc.stderr.split())
    assert "Traceback" not in proc.stderr


def test_a_setting_out_of_range_is_one_line_naming_the_key_and_range(cli: Cli) -> None:
    cli.run("init")
    (cli.workspace / "reverie.toml").write_text("[dream]\nkeep_history = -5\n")
    line = _one_line(cli.run("status", expect=1).stderr)
    assert "dream.keep_history must be an integer from 0 to 1e+08, got -5" in line


def test_a_file_that_is_not_toml_is_one_line_naming_where_and_the_fix(cli: Cli) -> None:
    cli.run("init")
    config = cli.workspace / "reverie.toml"
    config.write_text(config.read_text() + "\n[model]\nmodel = 'twice'\n", encoding="utf-8")
    line = _one_line(cli.run("status", expect=1).stderr)
    assert f"{config} is not valid TOML" in line
    assert "Cannot declare ('model',) twice" in line
    assert line.endswith("; fix reverie.toml")


def test_a_bad_key_names_the_file_or_the_environment(cli: Cli) -> None:
    cli.run("init")
    (cli.workspace / "reverie.toml").write_text("[model]\ncontext_window = 'lots'\n")
    line = _one_line(cli.run("status", expect=1).stderr)
    assert "in reverie.toml or the environment" in line
    assert "fix reverie.toml in" not in line
