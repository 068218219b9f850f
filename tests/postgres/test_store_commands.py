"""``reverie store``: init, list, import and export (in-process, and the real command line)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reverie.cli import app
from reverie.core.messages import Message
from reverie.storage.folder.backend import FileBackend

pytestmark = pytest.mark.slow


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
    return proc.stdout + proc.stderr


def _store(*args: str, env: dict[str, str | None], expect: int = 0) -> str:
    result = CliRunner().invoke(app, ["store", *args], env=env)
    assert result.exit_code == expect, result.output
    return result.output


def test_init_import_list_and_export_a_workspace(tmp_path: Path, pg_url: str) -> None:
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("REVERIE_")}
    env |= {"HOME": str(tmp_path), "REVERIE_STORE": pg_url}
    folder = tmp_path / "ws"
    made = FileBackend.open(folder, create=True)
    at = datetime(2026, 9, 7, 9, 22, tzinfo=timezone(timedelta(hours=2)))
    made.history.append("User: lives in Utrecht", session_key="tg:mira", at=at)
    made.sessions.append(
        "tg:mira", Message(role="user", content="I moved to Utrecht", timestamp=at)
    )
    made.files.write("USER", "# User\n\n- Lives in Utrecht\n")
    made.close()
    said = _store("init", "-w", "cli-team", env=env)
    assert "workspace 'cli-team' ready" in said
    imported = _store("import", str(folder), "-w", "cli-team", env=env)
    assert "imported 1 entries, 1 sessions (1 messages), 3 files" in imported
    assert "cli-team" in _store("list", env=env).split()
    assert "not empty" in _store("import", str(folder), "-w", "cli-team", env=env, expect=1)
    out = tmp_path / "out"
    _store("export", str(out), "-w", "cli-team", env=env)
    assert "not empty" in _store("export", str(out), "-w", "cli-team", env=env, expect=1)
    assert "postgresql://" in _store("list", "--store", "/tmp/x", env=env, expect=1)
    before = (folder / "memory" / "history.jsonl").read_bytes()
    assert (out / "memory" / "history.jsonl").read_bytes() == before
    assert (out / "USER.md").read_text() == (folder / "USER.md").read_text()
    exported = FileBackend.open(out)
    try:
        assert exported.sessions.load("tg:mira").messages[0].content == "I moved to Utrecht"
    finally:
        exported.close()


def test_a_missing_store_is_one_clear_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    said = _reverie("store", "list", env=env | {"HOME": str(tmp_path)}, expect=1)
    assert said.strip() == "error: no store: give --store postgresql://... or set REVERIE_STORE"


def test_init_with_a_store_initialises_the_database_not_a_folder(
    tmp_path: Path, pg_url: str
) -> None:
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("REVERIE_")}
    env |= {"HOME": str(tmp_path)}
    result = CliRunner().invoke(app, ["init", "--store", pg_url, "-w", "from-init"], env=env)
    assert result.exit_code == 0, result.output
    assert "workspace 'from-init' ready" in result.output
    assert not (tmp_path / ".reverie").exists()
    assert "from-init" in _store("list", "--store", pg_url, env=env).split()


def test_the_root_store_and_workspace_options_are_honoured(tmp_path: Path, pg_url: str) -> None:
    """``reverie --store URL [-w NAME] store ...`` as a person types it, a real process each."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env |= {"HOME": str(tmp_path), "REVERIE_STORE": "postgresql://nobody@127.0.0.1:1/wrong"}
    said = _reverie("--store", pg_url, "-w", "root-team", "store", "init", env=env)
    assert "workspace 'root-team' ready" in said
    assert "root-team" in _reverie("--store", pg_url, "store", "list", env=env).split()
    folder = tmp_path / "ws"
    made = FileBackend.open(folder, create=True)
    made.files.write("USER", "# User\n\n- Lives in Utrecht\n")
    made.close()
    _reverie("--store", pg_url, "-w", "root-import", "store", "import", str(folder), env=env)
    out = tmp_path / "out"
    _reverie("--store", pg_url, "-w", "root-import", "store", "export", str(out), env=env)
    assert "Utrecht" in (out / "USER.md").read_text(encoding="utf-8")
    # the command's own options still win over the root ones
    listed = _reverie(
        "--store", "postgresql://x@127.0.0.1:1/no", "store", "list", "--store", pg_url, env=env
    )
    assert "root-team" in listed.split()
