"""Releasing worker processes at one instant: each says ``ready``, then all are told ``go``."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence


def release_together(workers: Sequence[subprocess.Popen[str]]) -> None:
    """Wait until every worker printed ``ready``, then write ``go`` to each, back to back."""
    for worker in workers:
        assert worker.stdout is not None
        assert worker.stdout.readline() == "ready\n"
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
