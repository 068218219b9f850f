"""The README's main-job command, run as a newcomer runs it (the script behind ``./dev demo``).

The script runs as a real process with the caller's ``REVERIE_*`` variables removed, except
the suite's pin of dense recall to "off" (``tests/conftest.py``): with the dense extra
installed, "auto" would load the embedding model and encode every message (some 8 s of CPU),
which ``tests/dense`` proves on its own; the demo proves the model-free ingest and the output.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


@pytest.mark.slow
def test_the_main_job_ingests_the_examples_with_no_model_and_shows_memory(tmp_path: Path) -> None:
    if not (ROOT / ".venv" / "bin" / "reverie").exists():
        pytest.skip("the demo runs the CLI installed in .venv by ./dev (absent here)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env["REVERIE_MODEL"] = "must-be-ignored-by-the-demo"
    env["REVERIE_RECALL_EMBEDDINGS"] = "off"  # the suite's pin (see the module docstring)
    done = subprocess.run(
        ["bash", "scripts/demo.sh", str(tmp_path / "ws")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for expected in ("model-free", "Utrecht", "DuckDB", "dream: ingest", "== USER.md"):
        assert expected in out
    assert "Traceback" not in done.stderr
    assert "tulip-harbour-42" not in out
    assert (tmp_path / "ws" / ".git").is_dir()
