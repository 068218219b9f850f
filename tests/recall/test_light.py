"""Recall needs nothing beyond the default install: no embeddings, no numeric libraries."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "torch", "onnxruntime", "sentence_transformers", "model2vec", "fastembed")


def test_recall_imports_without_optional_packages() -> None:
    script = (
        "import sys\n"
        "from reverie.memory.recall import Recaller\n"
        "from reverie.storage.folder.index import SearchIndex\n"
        f"heavy = [name for name in {HEAVY!r} if name in sys.modules]\n"
        "print(heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )

    assert done.stdout.strip() == "[]"
