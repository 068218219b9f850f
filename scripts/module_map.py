"""The module map of docs/architecture.md, made from the tree: one row per module, its docstring.

Run: .venv/bin/python scripts/module_map.py [--write]

Prints the "Module map" section (every module of ``src/reverie``, grouped by layer folder, with
the first line of its docstring); ``--write`` replaces that section of docs/architecture.md.
``tests/test_architecture.py`` fails when the page and the tree disagree, so the map cannot
drift: a new module, a moved one or a changed first line shows up there.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "reverie"
PAGE = ROOT / "docs" / "architecture.md"
HEADING = "## Module map"

SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Base (layer 0): errors, values and pure rules, settings",
        ("errors", "core", "config"),
    ),
    (
        "Parts (layer 1): models, prompt texts, the storage seam",
        ("llm", "prompts", "storage"),
    ),
    ("Processes (layer 2): memory's jobs, on the ports", ("memory",)),
    ("Facade (layer 3): the engine, the only way in", ("engine",)),
    (
        "Surfaces (layer 4): parse, call the engine, format",
        ("adapters", "cli", "mcp", "serve", "viewer"),
    ),
    ("Shipped test support", ("testing",)),
    ("The package", ("__init__", "__main__")),
)
"""The page's sections, in order, and the top-level folders (or modules) each one lists."""


def _folder(path: Path) -> str:
    parts = path.relative_to(SRC).parts
    return parts[0] if len(parts) > 1 else path.stem


def _summary(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.split("\n", 1)[0].strip().replace("|", "\\|")


def render() -> str:
    """The whole section, from its heading to the end of the page."""
    modules = sorted(SRC.rglob("*.py"))
    listed = {name for _, names in SECTIONS for name in names}
    unlisted = sorted({_folder(path) for path in modules} - listed)
    if unlisted:
        raise SystemExit(f"add these top-level folders to SECTIONS in {__file__}: {unlisted}")
    lines = [
        HEADING,
        "",
        "One row per module, its docstring's first line (every module opens with a docstring",
        "saying what it owns and its invariants; read it for the details). Made by",
        "`scripts/module_map.py --write`; `tests/test_architecture.py` fails when this map and",
        "the tree disagree.",
    ]
    for title, names in SECTIONS:
        lines += ["", f"### {title}", "", "| module | what it owns |", "| --- | --- |"]
        lines += [
            f"| `{path.relative_to(SRC).as_posix()}` | {_summary(path)} |"
            for path in modules
            if _folder(path) in names
        ]
    return "\n".join(lines) + "\n"


def page_with_map(page: str) -> str:
    """``page`` with its module map section (heading to the end) made from the tree."""
    head = page.split(HEADING, 1)[0] if HEADING in page else page.rstrip("\n") + "\n\n"
    return head + render()


def main(argv: list[str]) -> int:
    if argv == ["--write"]:
        PAGE.write_text(page_with_map(PAGE.read_text(encoding="utf-8")), encoding="utf-8")
    elif not argv:
        sys.stdout.write(render())
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
