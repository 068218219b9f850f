"""Read commands work on a read-only, full or damaged workspace (issue #14).

Root ignores permission bits, so ``chmod -w`` cannot make a workspace unwritable for a test
run as root (as CI containers often are). Instead the reader runs in a private user and mount
namespace (``unshare -rm``): a read-only bind mount of the workspace there fails every write
with EROFS, root or not, and a 16 MiB tmpfs filled to the last byte fails every write with
ENOSPC. Nothing outside the namespace is mounted. Where ``unshare`` is unavailable those two
tests are skipped; the damaged-file tests need nothing special.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.errors import AuditError
from tests.conftest import StepClock

READER = Path(__file__).with_name("read_only_reader.py")
ROOT = Path(__file__).parents[1]


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        [
            "unshare",
            "-rm",
            "sh",
            "-c",
            "mount -t tmpfs tmpfs /mnt 2>/dev/null || mount -t tmpfs tmpfs /tmp",
        ],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


needs_unshare = pytest.mark.skipif(
    not _unshare_works(), reason="needs unshare -rm (user and mount namespaces)"
)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace with one compacted, dreamt conversation and no search index, made once."""
    root = tmp_path_factory.mktemp("read-only") / "ws"
    engine = MemoryEngine.open(root, Config(), environ={}, clock=StepClock(), dense="off")
    engine.record(
        "chat",
        [
            {"role": "user", "content": "I live in Oslo and I prefer green tea."},
            {"role": "assistant", "content": "Noted."},
        ],
    )
    engine.compact("chat")
    engine.dream()
    engine.close()
    (root / ".reverie" / "search.sqlite").unlink(missing_ok=True)  # force a fresh index
    return root


@pytest.fixture
def filled(template: Path, tmp_path: Path) -> Path:
    """A copy of ``template`` of the test's own."""
    return Path(shutil.copytree(template, tmp_path / "ws", symlinks=True))


def _read_in_namespace(script: str, workspace: Path) -> dict[str, object]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    reader = f"{sys.executable} {READER}"
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script.format(ws=workspace, reader=reader)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    found: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return found


def _all_work(found: dict[str, object]) -> None:
    assert found["status"] == 1
    assert found["log"] == 2
    assert found["search"] == 2
    assert found["history"] == 1
    assert found["doctor"] == []


@needs_unshare
@pytest.mark.slow
def test_read_commands_work_on_a_read_only_workspace(filled: Path) -> None:
    workspace = filled
    script = "mount --bind -o ro {ws} {ws} && touch {ws}/probe 2>/dev/null; {reader} {ws}"
    _all_work(_read_in_namespace(script, workspace))
    assert not (workspace / "probe").exists()
    assert not (workspace / ".reverie" / "search.sqlite").exists()  # nothing was written


@needs_unshare
@pytest.mark.slow
def test_read_commands_work_on_a_full_disk(tmp_path: Path, filled: Path) -> None:
    workspace = filled
    disk = tmp_path / "disk"
    disk.mkdir()
    script = (
        f"mount -t tmpfs -o size=16m tmpfs {disk} && cp -a {{ws}} {disk}/ws && "
        f"(dd if=/dev/zero of={disk}/fill bs=64k 2>/dev/null; true) && {{reader}} {disk}/ws"
    )
    _all_work(_read_in_namespace(script, workspace))


@pytest.mark.parametrize(
    ("relative", "text", "problem"),
    [
        ("memory/.cursor", "seven", "cursors"),
        ("memory/.dream_cursor", "x", "cursors"),
        (".git/HEAD", "garbage", "audit"),
    ],
)
def test_read_commands_report_a_damaged_file_instead_of_failing(
    filled: Path, relative: str, text: str, problem: str
) -> None:
    workspace = filled
    (workspace / relative).write_text(text)
    engine = MemoryEngine.open(
        workspace, Config(), environ={}, create=False, read_only=True, dense="off"
    )
    status = engine.status()
    assert status.last_cursor == 1
    assert engine.search("Oslo")
    assert len(engine.history()) == 1
    report = engine.doctor()
    assert not report.ok
    assert problem in [f.check for f in report.findings if f.severity == "problem"]
    if relative == ".git/HEAD":
        with pytest.raises(AuditError):  # the log itself is what is damaged: one clear error
            engine.log()
    else:
        assert engine.log()
    if relative == "memory/.dream_cursor":
        assert status.damaged
    engine.close()


@needs_unshare
@pytest.mark.slow
def test_a_dream_on_a_full_disk_fails_in_one_line_and_the_next_run_recovers(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    engine = MemoryEngine.open(workspace, Config(), environ={}, clock=StepClock(), dense="off")
    for number in range(12):
        engine.record(f"s{number}", [{"role": "user", "content": f"I live near town {number}."}])
        engine.compact(f"s{number}")
    engine.close()
    disk = tmp_path / "disk"
    disk.mkdir()
    reverie = f"{sys.executable} -m reverie"
    # Leave a few KiB free: the dream fails somewhere in its commit (where depends on the
    # file system's block accounting), which must be one line on stderr, never a traceback.
    # More free space is tried only while the dream still fits (it rarely does at 8 KiB).
    script = f"""
mount -t tmpfs -o size=16m tmpfs {disk}
for free in 8 16 24; do
  rm -rf {disk}/ws {disk}/fill; cp -a {workspace} {disk}/ws
  avail=$(df -k --output=avail {disk} | tail -1)
  dd if=/dev/zero of={disk}/fill bs=1k count=$((avail - free)) 2>/dev/null
  {reverie} dream --workspace {disk}/ws > /dev/null 2> {tmp_path}/err; code=$?
  echo "exit $code"
  cat {tmp_path}/err
  rm -f {disk}/fill
  {reverie} dream --workspace {disk}/ws > /dev/null 2>&1; echo "again $?"
  [ "$code" = 1 ] && break
done
"""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout
    lines = proc.stdout.splitlines()
    failed = [n for n, line in enumerate(lines) if line == "exit 1"]
    assert failed, proc.stdout  # at least one amount of free space made the dream fail
    for at in failed:
        assert lines[at + 1].startswith("error: ")  # the one line, then the rerun
        assert lines[at + 2] == "again 0"
