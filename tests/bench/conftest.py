"""Make the comparison's modules importable: they live in bench/, outside the package."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"

for folder in (BENCH, BENCH / "sidebyside"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
