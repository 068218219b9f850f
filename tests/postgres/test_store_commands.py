"""``reverie store``: init, list, import and export through the real command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_init_import_list_and_export_a_workspace(tmp_path: Path, pg_url: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env |= {"HOME": str(tmp_path), "REVERIE_STORE": pg_url}
    folder = tmp_path / "ws"
    _reverie("init", str(folder), env=env)
    examples = Path(__file__).parents[2] / "examples"
    _reverie("ingest", str(examples / "conversations.json"), "-w", str(folder), env=env)
    said = _reverie("store", "init", "-w", "cli-team", env=env)
    assert "workspace 'cli-team' ready" in said
    assert "secret" not in said
    imported = _reverie("store", "import", str(folder), "-w", "cli-team", env=env)
    assert "imported" in imported
    assert "cli-team" in _reverie("store", "list", env=env).split()
    again = _reverie("store", "import", str(folder), "-w", "cli-team", env=env, expect=1)
    assert "not empty" in again
    out = tmp_path / "out"
    _reverie("store", "export", str(out), "-w", "cli-team", env=env)
    before = (folder / "memory" / "history.jsonl").read_bytes()
    assert (out / "memory" / "history.jsonl").read_bytes() == before
    assert (out / "USER.md").read_text() == (folder / "USER.md").read_text()
    listed = _reverie("sessions", "-w", str(out), env=env)
    assert listed == _reverie("sessions", "-w", str(folder), env=env)


def test_a_missing_store_is_one_clear_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    said = _reverie("store", "list", env=env | {"HOME": str(tmp_path)}, expect=1)
    assert said.strip() == "error: no store: give --store postgresql://... or set REVERIE_STORE"
