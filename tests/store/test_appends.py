"""The one append path: a short write is retried until the data is complete, or it raises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reverie.storage.folder.appends import append_bytes, write_all

# A file-size limit makes the kernel write only what fits (a short write); the retry of the
# rest then fails with EFBIG, which must come back as an OSError, never as silent loss.
_LIMITED = """
import errno, os, resource, signal, sys
from pathlib import Path
from reverie.storage.folder.appends import append_bytes
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))
try:
    append_bytes(Path(sys.argv[1]), b"x" * 250)
except OSError as exc:
    print("raised", errno.errorcode[exc.errno], os.path.getsize(sys.argv[1]))
else:
    print("complete", os.path.getsize(sys.argv[1]))
"""


def test_appends_add_whole_data_in_order(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    append_bytes(path, b'{"a": 1}\n')
    append_bytes(path, b'{"b": 2}\n', sync=True)
    assert path.read_bytes() == b'{"a": 1}\n{"b": 2}\n'
    with path.open("ab") as handle:
        assert write_all(handle.fileno(), b"") == 0


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE short writes are Linux's")
def test_a_short_write_is_retried_and_a_retry_that_cannot_finish_raises(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    run = subprocess.run(
        [sys.executable, "-c", _LIMITED, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert run.stdout.split() == ["raised", "EFBIG", "100"]


def test_a_link_is_refused_when_links_are_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_bytes(b"")
    (tmp_path / "link.txt").symlink_to(target)
    with pytest.raises(OSError, match="Too many levels"):
        append_bytes(tmp_path / "link.txt", b"x\n", follow_links=False)
    assert target.read_bytes() == b""
