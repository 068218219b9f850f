"""Files reverie writes in place are never written through a hard link, nor ``.git`` a symlink.

The way a person hits it: a workspace set up with ``ln`` (a backup tool's hard links, a
``.git/objects`` moved to a bigger disk and linked back), then ``reverie ingest`` run as a
real process. The command refuses with an error naming the path, the file or folder on the
other side keeps every byte, and ``reverie doctor`` lists each link (exit 1).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from reverie.storage.folder import layout
from tests.cli.conftest import Cli, clean_env

CHAT = [
    {"role": "user", "content": "I live in Porto and I like green tea"},
    {"role": "assistant", "content": "Noted."},
]
LATER = [
    {"role": "user", "content": "My sister Ana works as a nurse in Lisbon"},
    {"role": "assistant", "content": "Noted."},
]


@pytest.fixture
def cli_process(tmp_path: Path) -> Cli:
    """``reverie`` as real processes on ``tmp_path/ws`` (as ``tests/cli`` runs it)."""
    workspace = tmp_path / "ws"
    return Cli(workspace=workspace, env=clean_env(tmp_path, workspace))


def _ingest(
    cli: Cli, tmp_path: Path, name: str, messages: list[dict[str, str]], expect: int
) -> subprocess.CompletedProcess[str]:
    source = tmp_path / f"{name}.jsonl"
    source.write_text(json.dumps({"messages": messages}) + "\n", encoding="utf-8")
    return cli.run("ingest", str(source), expect=expect)


def _digest(path: Path) -> str:
    if path.is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    parts = sorted(
        (str(p.relative_to(path)), p.read_bytes() if p.is_file() else b"") for p in path.rglob("*")
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()


@pytest.mark.parametrize(
    "relative", [layout.HISTORY, layout.CURSOR, layout.SESSIONS_DB, layout.LEDGER]
)
def test_a_hard_linked_file_reverie_writes_is_refused_and_reported(
    cli_process: Cli, tmp_path: Path, relative: str
) -> None:
    _ingest(cli_process, tmp_path, "first", CHAT, expect=0)
    other_name = tmp_path / "elsewhere.bin"
    os.link(cli_process.workspace / relative, other_name)
    before = _digest(other_name)

    refused = _ingest(cli_process, tmp_path, "later", LATER, expect=1)

    assert "hard link" in refused.stderr
    assert str(cli_process.workspace / relative) in refused.stderr
    assert "Traceback" not in refused.stderr
    assert _digest(other_name) == before
    report = cli_process.json("doctor", expect=1)
    links = [f for f in report["findings"] if f["check"] == "links"]
    assert [f["path"] for f in links] == [str(cli_process.workspace / relative)]
    assert "copy of its own" in links[0]["message"]


def test_doctor_lists_every_link_of_a_workspace_open_refuses(
    cli_process: Cli, tmp_path: Path
) -> None:
    _ingest(cli_process, tmp_path, "first", CHAT, expect=0)
    root = cli_process.workspace
    os.link(root / layout.HISTORY, tmp_path / "history-copy")
    os.link(root / layout.CURSOR, tmp_path / "cursor-copy")
    (tmp_path / "objects").mkdir()
    (root / ".git" / "objects").rename(tmp_path / "objects" / "moved")
    (root / ".git" / "objects").symlink_to(tmp_path / "objects" / "moved")

    report = cli_process.json("doctor", expect=1)

    assert sorted(f["path"] for f in report["findings"] if f["check"] == "links") == sorted(
        str(root / relative) for relative in (".git/objects", layout.HISTORY, layout.CURSOR)
    )


@pytest.mark.parametrize("relative", [".git/objects", ".git/refs", ".git/refs/heads"])
def test_a_git_folder_linked_outside_is_never_written_through(
    cli_process: Cli, tmp_path: Path, relative: str
) -> None:
    _ingest(cli_process, tmp_path, "first", CHAT, expect=0)
    folder = cli_process.workspace / relative
    moved = tmp_path / "moved" / folder.name
    moved.parent.mkdir()
    folder.rename(moved)
    folder.symlink_to(moved, target_is_directory=True)
    before = _digest(moved)

    refused = _ingest(cli_process, tmp_path, "later", LATER, expect=1)

    assert "symlink leading outside" in refused.stderr
    assert str(folder) in refused.stderr
    assert _digest(moved) == before
    report = cli_process.json("doctor", expect=1)
    assert [f["path"] for f in report["findings"] if f["check"] == "links"] == [str(folder)]


def test_a_git_folder_linked_inside_the_workspace_is_allowed(
    cli_process: Cli, tmp_path: Path
) -> None:
    _ingest(cli_process, tmp_path, "first", CHAT, expect=0)
    objects = cli_process.workspace / ".git" / "objects"
    kept = cli_process.workspace / ".reverie" / "objects"
    objects.rename(kept)
    objects.symlink_to(kept, target_is_directory=True)
    _ingest(cli_process, tmp_path, "later", LATER, expect=0)
    assert cli_process.json("doctor")["ok"]
