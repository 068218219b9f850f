"""``reverie forget`` on a full disk: one clear line and exit 1, never a traceback; nothing lost.

As ``tests/test_read_only.py`` stages it: a private user and mount namespace (``unshare -rm``)
with a 16 MiB tmpfs holding a copy of the workspace, filled to the last byte or to a few
KiB short of it (so the failure lands at different steps: the sessions, the search index,
git). The command runs as a real process there. Then the space comes back and the same
``forget --purge`` finishes: doctor is clean and no commit holds the text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reverie import MemoryEngine
from tests.test_read_only import needs_unshare

ROOT = Path(__file__).parents[2]


def _workspace(root: Path) -> Path:
    with MemoryEngine.open(root, environ={}, dense="off") as engine:
        engine.record(
            "chat",
            [
                {"role": "user", "content": "I live in Oslo and I prefer green tea."},
                {"role": "assistant", "content": "Noted."},
            ],
        )
        engine.compact("chat")
        engine.dream()
    return root


@needs_unshare
@pytest.mark.slow
@pytest.mark.parametrize("leave_kib", [0, 16, 32, 96, 176])
def test_forget_on_a_full_disk_fails_with_one_line_and_finishes_later(
    tmp_path: Path, leave_kib: int
) -> None:
    source = _workspace(tmp_path / "ws")
    disk = tmp_path / "disk"
    disk.mkdir()
    out = tmp_path / "results"  # outside the full disk
    out.mkdir()
    cli = f"{sys.executable} -m reverie -w {disk}/ws"
    script = (
        f"mount -t tmpfs -o size=16m tmpfs {disk} && cp -a {source} {disk}/ws && "
        f"(dd if=/dev/zero of={disk}/fill bs=4k 2>/dev/null; true) && "
        f"truncate -s -{leave_kib}K {disk}/fill && "
        f"{{ {cli} forget Oslo --yes --purge 2>{out}/full.err; echo $? >{out}/full.rc; }}; "
        f"rm {disk}/fill && "
        f"{cli} forget Oslo --yes --purge --json >{out}/again.json && "
        f"{cli} doctor --json >{out}/doctor.json && "
        f"git -C {disk}/ws log --all -p >{out}/log.txt"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_RECALL_EMBEDDINGS="off", HOME=str(tmp_path))
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results = out

    rc = int((results / "full.rc").read_text())
    said = (results / "full.err").read_text()
    assert "Traceback" not in said
    if leave_kib == 0:
        assert rc == 1
        assert "no space is left on the disk" in said
    if rc != 0:
        assert rc == 1
        [line] = [text for text in said.splitlines() if text.strip()]
        assert line.startswith("error: ")
    assert json.loads((results / "doctor.json").read_text())["ok"]
    assert "Oslo" not in (results / "log.txt").read_text()
    again = json.loads((results / "again.json").read_text())
    assert again["purge"]["clean"]
