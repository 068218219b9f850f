"""The model layer's boundaries: it never imports the store, and SDKs load only on use."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import reverie.llm

LLM_DIR = Path(reverie.llm.__file__).parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_llm_never_imports_the_store() -> None:
    offenders = {
        path.name: sorted(
            name for name in imported_modules(path) if name.startswith("reverie.storage.folder")
        )
        for path in LLM_DIR.glob("*.py")
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_importing_reverie_loads_no_model_sdk_or_tokenizer() -> None:
    program = (
        "import sys, reverie, reverie.llm.tokens, reverie.llm.openai_provider\n"
        "print(sorted(m for m in ('openai', 'anthropic', 'toktok') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"
