"""Fixtures for CLI tests: ``reverie`` run on a fresh workspace, in-process or as a process.

``cli.run(...)`` runs the command with an environment that has no ``REVERIE_*`` variable of the
person running the tests, ``HOME`` inside tmp_path, a wide ``COLUMNS`` and
``REVERIE_WORKSPACE`` pointing at a fresh workspace. Background schedules are off (idle
minutes and dream interval 0) so nothing runs that a test did not ask for, and dense recall
is off (the suite's pin, ``tests/conftest.py``).

The ``cli`` fixture runs each command in-process through typer's ``CliRunner``: one engine
opened and closed per command, so state passes between commands only on disk, as between
processes, at a fraction of a process start. ``cli_process`` runs ``python -m reverie`` as a
real subprocess, for the tests where the process is what is proven (the README walk, the
console script, signals and terminals).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.llm.loopback import LoopbackServer


@dataclass
class Cli:
    """Runs the ``reverie`` command in a subprocess against one workspace."""

    workspace: Path
    env: dict[str, str] = field(default_factory=dict)
    in_process: bool = False

    def run(
        self, *args: str, expect: int | None = 0, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``reverie ARGS``; check the exit status unless ``expect`` is None."""
        if self.in_process:
            proc = self._invoke(list(args), stdin)
        else:
            proc = subprocess.run(
                [sys.executable, "-m", "reverie", *args],
                env=self.env,
                capture_output=True,
                text=True,
                input=stdin,
                timeout=120,
                check=False,
            )
        if expect is not None:
            assert proc.returncode == expect, (
                f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
            )
        return proc

    def _invoke(self, args: list[str], stdin: str | None) -> subprocess.CompletedProcess[str]:
        """The command in this process, with exactly ``env`` as its environment."""
        from typer.testing import CliRunner

        from reverie.cli import app

        outside: dict[str, str | None] = {key: None for key in os.environ if key not in self.env}
        result = CliRunner().invoke(
            app, args, input=stdin, env={**outside, **self.env}, catch_exceptions=False
        )
        return subprocess.CompletedProcess(
            ["reverie", *args], result.exit_code, result.stdout, result.stderr
        )

    def json(self, *args: str, expect: int = 0) -> Any:
        """Run ``reverie ARGS --json`` and parse its stdout."""
        return json.loads(self.run(*args, "--json", expect=expect).stdout)

    def configure(
        self,
        chat: LoopbackServer | None,
        memory: LoopbackServer | None = None,
        *,
        context_window: int = 128_000,
        max_output_tokens: int = 200,
    ) -> None:
        """Write reverie.toml: the chat model on ``chat``, the memory model on ``memory``."""
        lines = ["[model]"]
        if chat is not None:
            lines += [f'base_url = "{chat.base_url}"', 'model = "chat-model"']
        lines += [f"context_window = {context_window}", f"max_output_tokens = {max_output_tokens}"]
        if memory is not None:
            lines += ["[memory_model]", f'base_url = "{memory.base_url}"', 'model = "memory-model"']
        (self.workspace / "reverie.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def clean_env(home: Path, workspace: Path) -> dict[str, str]:
    """The environment for a CLI subprocess: no REVERIE_* of the caller, schedules off."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("REVERIE_")}
    env.update(
        HOME=str(home),
        COLUMNS="200",
        REVERIE_WORKSPACE=str(workspace),
        REVERIE_API_KEY="test-key",
        REVERIE_IDLE_MINUTES="0",
        REVERIE_DREAM_INTERVAL_MINUTES="0",
        REVERIE_RECALL_EMBEDDINGS="off",  # the suite's pin (tests/conftest.py)
    )
    return env


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """The commands in-process on the (not yet created) workspace ``tmp_path/ws``."""
    workspace = tmp_path / "ws"
    return Cli(workspace=workspace, env=clean_env(tmp_path, workspace), in_process=True)


@pytest.fixture
def cli_process(tmp_path: Path) -> Cli:
    """The commands as real ``python -m reverie`` processes on ``tmp_path/ws``."""
    workspace = tmp_path / "ws"
    return Cli(workspace=workspace, env=clean_env(tmp_path, workspace))
