"""The CLI on a PostgreSQL workspace as a person types it: ``REVERIE_STORE=... reverie -w X``.

The environment keeps the suite's pin of dense recall to "off" (``tests/conftest.py``): with
the dense extra installed, "auto" would load the embedding model in the ``ask`` process (some
3 s), which ``tests/dense`` proves on its own.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reverie.cli import app
from tests.llm.loopback import LoopbackServer, chat_text

pytestmark = pytest.mark.slow


def _env(tmp_path: Path, pg_url: str, loopback: LoopbackServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    return env | {
        "HOME": str(tmp_path),
        "COLUMNS": "200",
        "REVERIE_STORE": pg_url,
        "REVERIE_MODEL": "chat-model",
        "REVERIE_BASE_URL": loopback.base_url,
        "REVERIE_API_KEY": "test-key",
        "REVERIE_DREAM_MODE": "model-free",
        "REVERIE_IDLE_MINUTES": "0",
        "REVERIE_RECALL_EMBEDDINGS": "off",  # the suite's pin (tests/conftest.py)
    }


def _cli(*args: str, env: dict[str, str]) -> str:
    """One command in-process (typer's runner): its exit 0 asserted, stdout and stderr."""
    result = CliRunner().invoke(app, list(args), env=env)
    assert result.exit_code == 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.output


def _reverie(*args: str, env: dict[str, str], expect: int = 0) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "reverie", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == expect, f"{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr
    return proc.stdout + proc.stderr


def test_a_person_uses_a_database_workspace_from_the_command_line(
    tmp_path: Path, pg_url: str, loopback: LoopbackServer
) -> None:
    env = _env(tmp_path, pg_url, loopback)
    team = f"team-{secrets.token_hex(4)}"
    invoke = CliRunner().invoke  # the checks around what the person types, in-process
    missing = invoke(app, ["-w", team, "status"], env=env)
    assert missing.exit_code == 1, missing.output
    assert isinstance(missing.exception, SystemExit), missing.exception  # not a crash
    assert "no such workspace" in missing.output
    assert f"workspace {team!r} ready" in _reverie("init", "--store", pg_url, "-w", team, env=env)
    loopback.script(chat_text("Noted: the launch is on Friday."))
    said = _reverie("-w", team, "ask", "The launch moved to Friday", "-s", "cli:ana", env=env)
    assert "Noted: the launch is on Friday." in said
    compacted = invoke(app, ["-w", team, "compact", "cli:ana"], env=env)
    assert compacted.exit_code == 0, compacted.output
    history = invoke(app, ["-w", team, "history", "--json"], env=env)
    assert "Friday" in history.output
    assert "Friday" in invoke(app, ["-w", team, "search", "launch"], env=env).output
    assert "cli:ana" in invoke(app, ["-w", team, "sessions"], env=env).output
    status = json.loads(invoke(app, ["-w", team, "status", "--json"], env=env).output)
    assert status["last_cursor"] >= 1
    assert team in status["workspace"]
    cost = invoke(app, ["-w", team, "cost"], env=env)
    assert cost.exit_code == 0, cost.output
    assert invoke(app, ["-w", team, "doctor"], env=env).exit_code == 0
    dreamed = invoke(app, ["-w", team, "dream"], env=env)
    assert dreamed.exit_code == 0, dreamed.output
    assert "dream: manual (model-free)" in invoke(app, ["-w", team, "log"], env=env).output


def test_why_and_forget_run_on_a_database_workspace_from_the_command_line(
    tmp_path: Path, pg_url: str, loopback: LoopbackServer
) -> None:
    env = _env(tmp_path, pg_url, loopback)
    team = f"team-{secrets.token_hex(4)}"
    base = ["--store", pg_url, "-w", team]
    _cli(*base, "init", env=env)
    for key, said in (("cli:ana", "I live in Utrecht."), ("cli:bo", "I play the cello.")):
        loopback.script(chat_text("Noted."), chat_text(f"- [fact] User said: {said}"))
        _cli(*base, "ask", said, "-s", key, env=env)
        _cli(*base, "compact", key, env=env)
    _cli(*base, "dream", env=env)
    why = json.loads(_cli(*base, "why", "Utrecht", "--json", env=env))
    [line] = why["lines"]
    assert line["origin"] == "dream"
    assert [e["session_key"] for e in line["entries"]] == ["cli:ana"]
    assert "entry #1" in _cli(*base, "why", "Utrecht", env=env)
    forgot = json.loads(_cli(*base, "forget", "Utrecht", "--yes", "--json", env=env))
    assert forgot["commit"] is not None
    assert forgot["lines"][0]["reason"] == "matches"
    assert "no durable line matches" in _cli(*base, "why", "Utrecht", env=env)
    assert "forget: 1 line(s)" in _cli(*base, "log", env=env)
    purged = json.loads(_cli(*base, "forget", "Utrecht", "--purge", "--yes", "--json", env=env))
    assert purged["purge"]["clean"] is True
    assert "Utrecht" not in _cli(*base, "log", "--json", env=env)
    assert "cello" in _cli(*base, "why", "cello", env=env)
