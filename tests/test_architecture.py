"""Meta-tests that keep the architecture of DESIGN.md and STYLE.md honest."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import reverie

SRC = Path(reverie.__file__).parent

# Layer of each top-level module or package below ``reverie``; imports may only point down
# (or sideways within one layer, except store <-> llm, which must never meet).
LAYERS: dict[str, int] = {
    "errors": 0,
    "clock": 0,
    "lazy_exports": 0,
    "messages": 0,
    "inbound": 0,
    "config": 0,
    "config_checks": 0,
    "config_file": 3,
    "token_estimate": 0,
    "session": 0,
    "turns": 0,
    "redact": 0,
    "screening": 0,
    "store": 1,
    "llm": 1,
    "prompts": 1,
    "prompt": 2,
    "compaction": 2,
    "dream": 2,
    "agent": 2,
    "status": 2,
    "doctor": 2,
    "search": 2,
    "recall": 2,
    "dense": 2,
    "modelfree": 2,
    "provenance": 2,
    "importers": 2,
    "engine": 3,
    "engine_reads": 3,
    "endpoints": 3,
    "async_engine": 3,
    "ingest": 3,
    "ingest_guard": 2,
    "cli": 4,
    "mcp": 4,
    "serve": 4,
    "viewer": 4,
    "__init__": 5,
    "__main__": 5,
}
FORBIDDEN_PAIRS = {("store", "llm"), ("llm", "store")}


def _modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _top(path: Path) -> str:
    return path.relative_to(SRC).parts[0].removesuffix(".py")


def _imported_tops(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tops: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("reverie."):
            tops.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            tops.update(a.name.split(".")[1] for a in node.names if a.name.startswith("reverie."))
    return tops


def test_every_module_has_a_layer() -> None:
    unknown = {_top(path) for path in _modules()} - set(LAYERS)
    assert not unknown, f"add these modules to LAYERS in {__file__}: {sorted(unknown)}"


def test_imports_point_down_the_layers() -> None:
    violations = []
    for path in _modules():
        own = _top(path)
        for imported in _imported_tops(path):
            if LAYERS.get(imported, 99) > LAYERS[own] or (own, imported) in FORBIDDEN_PAIRS:
                violations.append(f"{path.relative_to(SRC)} imports reverie.{imported}")
    assert violations == []


def test_modules_stay_small() -> None:
    too_big = [
        f"{path.relative_to(SRC)}: {n} lines"
        for path in _modules()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 500
    ]
    assert too_big == []


def test_functions_stay_short() -> None:
    long_functions = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                body_start = node.body[0].lineno
                if isinstance(node.body[0], ast.Expr) and isinstance(
                    node.body[0].value, ast.Constant
                ):
                    body_start = node.body[1].lineno if len(node.body) > 1 else node.end_lineno or 0
                length = (node.end_lineno or 0) - body_start + 1
                if length > 40:
                    long_functions.append(f"{path.relative_to(SRC)}:{node.name} ({length} lines)")
    assert long_functions == []


def test_every_module_opens_with_a_docstring() -> None:
    missing = [
        str(path.relative_to(SRC))
        for path in _modules()
        if ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) is None
    ]
    assert missing == []


def test_public_api_is_sorted_and_importable() -> None:
    assert reverie.__all__ == sorted(reverie.__all__)
    for name in reverie.__all__:
        assert getattr(reverie, name) is not None


@pytest.mark.parametrize("package", ["reverie", "reverie.modelfree", "reverie.provenance"])
def test_lazy_exports_match_the_typed_imports_and_all(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__file__ is not None
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    checked = next(node for node in tree.body if isinstance(node, ast.If))  # if TYPE_CHECKING:
    typed: dict[str, str] = {
        alias.name: node.module or ""
        for node in ast.walk(checked)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert typed == module._WHERE
    assert set(typed) == set(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None


def test_no_module_is_named_like_a_junk_drawer() -> None:
    junk = {"utils", "helpers", "common", "misc", "manager"}
    assert not [p for p in _modules() if p.stem in junk]
