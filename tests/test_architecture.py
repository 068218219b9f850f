"""Meta-tests that keep the architecture of DESIGN.md and STYLE.md honest."""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
import subprocess
import sys
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

import reverie

SRC = Path(reverie.__file__).parent

# The layers are the folders of ``src/reverie`` (DESIGN.md, "the tree is the map"): the layer
# of a module is the layer of its top-level folder. Imports may only point down, or sideways
# within one layer as ``SIBLINGS`` allows; storage and the model layer never meet.
LAYERS: dict[str, int] = {
    "errors": 0,  # the exception tree
    "core": 0,  # values and pure rules, no I/O
    "config": 0,  # settings, their ranges, loading them
    "llm": 1,  # the model providers
    "prompts": 1,  # the instruction texts
    "storage": 1,  # the ports, the backend choice, the folder and PostgreSQL backends
    "memory": 2,  # the processes, on the ports
    "engine": 3,  # the facade
    "adapters": 4,  # framework memory interfaces over the facade
    "cli": 4,
    "mcp": 4,
    "serve": 4,
    "viewer": 4,
    "testing": 5,  # shipped test support: nothing of the product imports it
    "__init__": 5,  # the public API
    "__main__": 5,
}
FORBIDDEN_PAIRS = {("storage", "llm"), ("llm", "storage")}
SURFACES = frozenset(group for group, layer in LAYERS.items() if layer == 4)
FACADE = frozenset(group for group, layer in LAYERS.items() if layer == 3)
BASE = frozenset(group for group, layer in LAYERS.items() if layer == 0)
FOLDERS_WITH_PARTS = frozenset({"storage", "memory"})
"""Layer folders whose parts (``memory.dream``, ``storage.folder``) use one another only as
``SIBLINGS`` allows; inside the other folders any module may use any other (no cycles)."""

# Imports between two groups of one layer (1 to 4), or two parts of ``storage`` or ``memory``,
# that the design allows; any other is a violation. Base modules (layer 0) may use one another,
# as long as there is no cycle.
SIBLINGS: frozenset[tuple[str, str]] = frozenset(
    {
        # processes: the prompt feeds compaction and the agent; dream curates with the
        # model-free curator and forget's planner; status and doctor read dream's state
        # (doctor runs the session-secrets check);
        # ingest drives the importers, compaction and dream.
        ("memory.agent", "memory.compaction"),
        ("memory.agent", "memory.prompt"),
        ("memory.compaction", "memory.prompt"),
        ("memory.modelfree", "memory.compaction"),
        ("memory.prompt", "memory.recall"),
        ("memory.dream", "memory.modelfree"),
        ("memory.dream", "memory.provenance"),
        ("memory.status", "memory.dream"),
        ("memory.doctor", "memory.dream"),
        ("memory.doctor", "memory.ingest"),
        ("memory.doctor", "memory.session_secrets"),
        ("memory.ingest", "memory.compaction"),
        ("memory.ingest", "memory.dream"),
        # storage: the backend choice and the transfer name both backends, the sources read
        # folders from outside (ingest, doctor on an unopened folder), the homes give owners'
        # homes what they need of a folder or a database; the PostgreSQL
        # backend and the seam still take value types from the folder backend (issue #26)
        ("storage.open", "storage.folder"),
        ("storage.open", "storage.ports"),
        ("storage.sources", "storage.folder"),
        ("storage.homes", "storage.folder"),
        ("storage.homes", "storage.ports"),
        ("storage.homes", "storage.postgres"),
        ("storage.transfer", "storage.ports"),
        ("storage.open", "storage.postgres"),
        ("storage.transfer", "storage.folder"),
        ("storage.transfer", "storage.postgres"),
        ("storage.postgres", "storage.folder"),
        ("storage.ports", "storage.folder"),
        # surfaces: the CLI starts the servers; serve mounts the MCP server; none imports cli
        ("cli", "mcp"),
        ("cli", "serve"),
        ("cli", "viewer"),
        ("serve", "mcp"),
    }
)

ENGINE_NAMES = frozenset({"memory", "engine"})
"""What surfaces call the engine (also ``self._engine``): the receivers the facade rule reads."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Edge:
    """One import: ``source`` module imports ``names`` from ``target`` module (line ``line``)."""

    source: str
    target: str
    names: tuple[str, ...]
    line: int


def _modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _real_tree() -> dict[str, str]:
    return {_module_name(path): path.read_text(encoding="utf-8") for path in _modules()}


@functools.cache
def _parsed(text: str) -> ast.Module:
    """One parse of each text for all the rules (the trees are only read)."""
    return ast.parse(text)


@functools.cache
def _nodes(text: str) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(_parsed(text)))


@pytest.fixture(scope="module", autouse=True)
def _forget_the_trees() -> Iterator[None]:
    """The parsed source is held while this module runs, not for the rest of the suite."""
    yield
    for cached in (_real_tree, _parsed, _nodes):
        cached.cache_clear()


def _group(module: str) -> str:
    """The layer folder of a module: ``reverie.storage.folder.history`` -> ``storage``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _unit(module: str) -> str:
    """The layer folder, with the base (``errors``, ``core``, ``config``) as one unit."""
    group = _group(module)
    return "base" if group in BASE else group


def _part(module: str) -> str:
    """The unit sibling rules speak of: a part of storage or memory, else ``_unit``."""
    parts = module.split(".")
    group = _group(module)
    return (
        f"{group}.{parts[2]}" if group in FOLDERS_WITH_PARTS and len(parts) > 2 else _unit(module)
    )


def edges(tree: Mapping[str, str]) -> list[Edge]:
    """Every import of a reverie module anywhere in each module (``TYPE_CHECKING`` included)."""
    found: list[Edge] = []
    for source, text in tree.items():
        for node in _nodes(text):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("reverie"):
                module = node.module or ""
                for alias in node.names:
                    full = f"{module}.{alias.name}"
                    if (
                        full in tree
                    ):  # ``from reverie.storage.folder import layout``: the module itself
                        found.append(Edge(source=source, target=full, names=(), line=node.lineno))
                    else:
                        found.append(
                            Edge(
                                source=source, target=module, names=(alias.name,), line=node.lineno
                            )
                        )
            elif isinstance(node, ast.Import):
                found.extend(
                    Edge(source=source, target=alias.name, names=(), line=node.lineno)
                    for alias in node.names
                    if alias.name.startswith("reverie")
                )
    return found


def unlayered(tree: Mapping[str, str]) -> list[str]:
    """Groups with no layer."""
    return sorted({_group(module) for module in tree} - set(LAYERS))


def layer_violations(found: list[Edge]) -> list[str]:
    """Imports that point up a layer, or join two groups that must never meet."""
    bad = []
    for edge in found:
        own, other = _group(edge.source), _group(edge.target)
        if LAYERS.get(other, 99) > LAYERS.get(own, -1) or (own, other) in FORBIDDEN_PAIRS:
            bad.append(f"{edge.source}:{edge.line} imports {edge.target} (a higher layer)")
    return bad


def sibling_violations(found: list[Edge]) -> list[str]:
    """Imports between two groups of one layer that ``SIBLINGS`` does not allow."""
    bad = []
    for edge in found:
        own, other = _part(edge.source), _part(edge.target)
        layer = LAYERS.get(_group(edge.source), -1)
        if (
            own != other
            and layer > 0
            and layer == LAYERS.get(_group(edge.target))
            and (own, other) not in SIBLINGS
        ):
            bad.append(f"{edge.source}:{edge.line} imports sibling {edge.target}")
    return bad


def cycles(found: list[Edge], key: Callable[[str], str]) -> list[list[str]]:
    """The import cycles (strongly connected components) among ``key(module)`` nodes."""
    graph: dict[str, set[str]] = {}
    for edge in found:
        a, b = key(edge.source), key(edge.target)
        graph.setdefault(a, set())
        graph.setdefault(b, set())
        if a != b:
            graph[a].add(b)
    reach = {node: _reachable(graph, node) for node in graph}
    components = {
        frozenset(n for n in graph if n in reach[node] and node in reach[n]) for node in graph
    }
    return sorted(sorted(component) for component in components if len(component) > 1)


def _reachable(graph: Mapping[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    stack = [start]
    while stack:
        for nxt in graph[stack.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def surface_violations(found: list[Edge], is_value: Callable[[str, str], bool]) -> list[str]:
    """Surfaces reach memory only through the facade: from elsewhere they import only values.

    A surface may import the facade, the base, and its own layer as ``SIBLINGS`` allows; from a
    process or a part only values (frozen dataclasses, constants, type aliases, errors) and
    never a whole module.
    """
    bad = []
    for edge in found:
        own, other = _group(edge.source), _group(edge.target)
        if own not in SURFACES or other in SURFACES | FACADE | BASE:
            continue
        for name in edge.names or ("<module>",):
            if not edge.names or not is_value(edge.target, name):
                bad.append(f"{edge.source}:{edge.line} takes {name} from {edge.target}")
    return bad


def engine_part_violations(tree: Mapping[str, str], operations: frozenset[str]) -> list[str]:
    """Surfaces use only the engine's operations, never its parts or private attributes."""
    bad = []
    for module, text in tree.items():
        if _group(module) not in SURFACES:
            continue
        for node in _nodes(text):
            if (
                isinstance(node, ast.Attribute)
                and _is_engine(node.value)
                and node.attr not in operations
            ):
                bad.append(f"{module}:{node.lineno} uses the engine's {node.attr}")
    return bad


def _is_engine(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in ENGINE_NAMES
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "_engine"
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def workspace_violations(found: list[Edge]) -> list[str]:
    """Only storage and test support take ``Workspace``; every other module the ports."""
    return [
        f"{edge.source}:{edge.line} imports the file backend (use reverie.storage.ports)"
        for edge in found
        if edge.target == "reverie.storage.folder.workspace"
        and _group(edge.source) not in {"storage", "testing"}
    ]


BACKENDS = ("reverie.storage.folder", "reverie.storage.postgres")


def backend_imports(found: list[Edge]) -> list[str]:
    """Modules outside storage/ and testing/ that import a backend package (not the ports).

    Test support (``reverie.testing.folders``) may: nothing of the product imports it.
    """
    return sorted(
        {
            edge.source
            for edge in found
            if edge.target.startswith(BACKENDS)
            and _group(edge.source) not in {"storage", "testing"}
        }
    )


BACKEND_CLASSES = frozenset({"Workspace", "FileBackend", "PgBackend"})
"""The backends' own classes: only ``storage`` names them (DESIGN.md); above it, the ports."""
BRANCH_TYPES = BACKEND_CLASSES | {"DreamStores"}
"""What a backend branch tests for: ``isinstance(x, Workspace)``, or ``on_folder``."""


def backend_names(tree: Mapping[str, str]) -> dict[str, list[str]]:
    """Per module above storage: where it names a backend class or branches on the backend."""
    found: dict[str, list[str]] = {}
    for module, text in tree.items():
        if _group(module) in {"storage", "testing"}:
            continue
        for node in _nodes(text):
            name = (
                node.id
                if isinstance(node, ast.Name)
                else node.attr
                if isinstance(node, ast.Attribute)
                else None
            )
            names = [alias.name for alias in node.names] if isinstance(node, ast.ImportFrom) else []
            for spelled in [name, *names]:
                if spelled in BACKEND_CLASSES or spelled == "on_folder":
                    line = getattr(node, "lineno", 0)
                    found.setdefault(module, []).append(f"{module}:{line} names {spelled}")
    return {module: sorted(lines) for module, lines in found.items()}


def support_imports(found: list[Edge]) -> list[str]:
    """Nothing of the product imports ``reverie.testing`` (tests and benchmarks do)."""
    return [
        f"{edge.source}:{edge.line} imports test support {edge.target}"
        for edge in found
        if _group(edge.target) == "testing" and _group(edge.source) != "testing"
    ]


# Strings that spell a workspace path outside ``storage/folder/layout.py``, allowed with reasons.
PATH_EXCEPTIONS: frozenset[tuple[str, str]] = frozenset(
    {
        (
            "reverie.storage.folder.confine",
            r"memory/history.*\.jsonl",
        ),  # a pattern dream may not read
        ("reverie.serve.proxy", "memory"),  # an error code, not a path
        ("reverie.serve.responses", "memory"),  # the same error code
        ("reverie.serve.memories", "memory"),  # the same error code
    }
)


def _layout_paths() -> frozenset[str]:
    from reverie.storage.folder import layout

    return frozenset(
        value
        for name, value in vars(layout).items()
        if name.isupper() and isinstance(value, str) and ("/" in value or value.startswith("."))
    )


def path_violations(tree: Mapping[str, str], spelled: frozenset[str]) -> list[str]:
    """Workspace paths are spelled once, in ``storage.folder.layout``; others use its names.

    The durable files' own paths are spelled in ``core.durable`` (every layer addresses the
    files by name; the layout takes their paths from there).
    """
    bad = []
    for module, text in tree.items():
        if module in {"reverie.storage.folder.layout", "reverie.core.durable"}:
            continue
        docstrings = _docstrings(text)
        for node in _nodes(text):
            if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
                continue
            value = node.value
            looks = value in spelled or value in {"memory", ".reverie", ".git"}
            looks = looks or value.startswith((".reverie/", "memory/"))
            if looks and (module, value) not in PATH_EXCEPTIONS and id(node) not in docstrings:
                bad.append(f"{module}:{node.lineno} spells the path {value!r}")
    return bad


def _docstrings(text: str) -> set[int]:
    return {
        id(node.body[0].value)
        for node in _nodes(text)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def _is_value(module: str, name: str) -> bool:
    obj = getattr(importlib.import_module(module), name)
    if isinstance(obj, type):
        return dataclasses.is_dataclass(obj) or issubclass(obj, BaseException)
    if typing.get_origin(obj) is not None:  # Literal[...], Callable[...], unions
        return True
    return not callable(obj) or (module, name) in PURE_FUNCTIONS


PURE_FUNCTIONS = frozenset({("reverie.memory.dream.edit", "text_sha256")})
"""Functions of lower layers a surface may call: pure, no store, no model."""


def _operations() -> frozenset[str]:
    from reverie.engine.async_engine import AsyncMemoryEngine
    from reverie.engine.facade import MemoryEngine

    names = set(dir(MemoryEngine)) | set(dir(AsyncMemoryEngine))
    init = ast.parse(inspect.getsource(MemoryEngine.__init__).strip())
    names |= {  # the settings it was opened with: ``self.mode = ...`` in ``__init__``
        node.attr
        for node in ast.walk(init)
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
    }
    return frozenset(name for name in names if not name.startswith("_"))


def test_every_module_has_a_layer() -> None:
    assert unlayered(_real_tree()) == [], f"add these groups to LAYERS in {__file__}"


def test_imports_point_down_the_layers() -> None:
    assert layer_violations(edges(_real_tree())) == []


def test_siblings_import_each_other_only_as_the_design_allows() -> None:
    assert sibling_violations(edges(_real_tree())) == []


def test_no_import_cycles_between_groups_parts_or_modules() -> None:
    found = edges(_real_tree())
    assert cycles(found, _unit) == []
    assert cycles(found, _part) == []
    assert cycles(found, lambda module: module) == []


def test_surfaces_enter_only_through_the_facade() -> None:
    tree = _real_tree()
    assert surface_violations(edges(tree), _is_value) == []
    assert engine_part_violations(tree, _operations()) == []


def test_processes_take_the_ports_not_the_file_backend() -> None:
    assert workspace_violations(edges(_real_tree())) == []


def test_only_storage_names_a_backend_class() -> None:
    assert backend_names(_real_tree()) == {}


def test_only_storage_imports_a_backend_package() -> None:
    assert backend_imports(edges(_real_tree())) == []


def test_the_product_never_imports_test_support() -> None:
    assert support_imports(edges(_real_tree())) == []


def test_workspace_paths_are_spelled_only_in_the_layout() -> None:
    assert path_violations(_real_tree(), _layout_paths()) == []


# Every rule can fail: each is fed a small fake tree that breaks it.


def test_the_rules_catch_a_violating_tree() -> None:
    up = edges({"reverie.storage.folder.bad": "from reverie.engine.facade import MemoryEngine\n"})
    assert layer_violations(up) == [
        "reverie.storage.folder.bad:1 imports reverie.engine.facade (a higher layer)"
    ]
    assert layer_violations(edges({"reverie.storage.folder.x": "import reverie.llm.provider\n"}))
    assert unlayered({"reverie.gadgets": ""}) == ["gadgets"]
    reaching = {
        "reverie.memory.x": "from reverie.storage.folder.workspace import Workspace\n",
        "reverie.storage.open": "from reverie.storage.postgres.backend import PgBackend\n",
        "reverie.mcp.y": "from reverie.storage.ports import Stores\n",
    }
    assert backend_imports(edges(reaching)) == ["reverie.memory.x"]
    sideways = edges({"reverie.mcp.x": "from reverie.cli.render import out\n"})
    assert sibling_violations(sideways) == ["reverie.mcp.x:1 imports sibling reverie.cli.render"]
    typed_cycle = {
        "reverie.memory.prompt": "if TYPE_CHECKING:\n    from reverie.memory.agent import Agent\n",
        "reverie.memory.agent": "from reverie.memory.prompt import PromptAssembler\n",
    }
    assert cycles(edges(typed_cycle), _part) == [["memory.agent", "memory.prompt"]]
    assert cycles(edges(typed_cycle), lambda module: module) == [
        ["reverie.memory.agent", "reverie.memory.prompt"]
    ]
    reach = edges(
        {
            "reverie.cli.x": "from reverie.storage.folder.workspace import Workspace\n",
            "reverie.storage.folder.workspace": "",
        }
    )
    assert surface_violations(reach, lambda _m, _n: False) == [
        "reverie.cli.x:1 takes Workspace from reverie.storage.folder.workspace"
    ]
    assert surface_violations(
        edges({"reverie.viewer.x": "from reverie.memory.status import gather\n"}), _is_value
    ) == ["reverie.viewer.x:1 takes gather from reverie.memory.status"]
    parts = {"reverie.cli.x": "def f(memory):\n    return memory.recaller.index, memory._stores\n"}
    assert sorted(engine_part_violations(parts, frozenset({"status"}))) == [
        "reverie.cli.x:2 uses the engine's _stores",
        "reverie.cli.x:2 uses the engine's recaller",
    ]
    spelled = {"reverie.memory.doctor": '"""Doc: memory/.cursor."""\nFLOOR = "memory/.cursor"\n'}
    assert path_violations(spelled, frozenset()) == [
        "reverie.memory.doctor:2 spells the path 'memory/.cursor'"
    ]
    branch = {"reverie.engine.x": "def f(s):\n    return isinstance(s, PgBackend) or s.on_folder\n"}
    assert backend_names(branch) == {
        "reverie.engine.x": [
            "reverie.engine.x:2 names PgBackend",
            "reverie.engine.x:2 names on_folder",
        ]
    }
    assert backend_names({"reverie.storage.open": "x = FileBackend\n"}) == {}
    support = edges({"reverie.cli.x": "from reverie.testing.local_cluster import start\n"})
    assert support_imports(support) == [
        "reverie.cli.x:1 imports test support reverie.testing.local_cluster"
    ]
    inside = edges({"reverie.memory.recall.x": "from reverie.memory.dream import y\n"})
    assert sibling_violations(inside) == [
        "reverie.memory.recall.x:1 imports sibling reverie.memory.dream"
    ]
    files = edges(
        {"reverie.memory.prompt": "from reverie.storage.folder.workspace import Workspace\n"}
    )
    assert workspace_violations(files) == [
        "reverie.memory.prompt:1 imports the file backend (use reverie.storage.ports)"
    ]


def test_modules_stay_small() -> None:
    too_big = [
        f"{path.relative_to(SRC)}: {n} lines"
        for path in _modules()
        if (n := len(_real_tree()[_module_name(path)].splitlines())) > 500
    ]
    assert too_big == []


def test_functions_stay_short() -> None:
    long_functions = []
    for path in _modules():
        for node in _nodes(_real_tree()[_module_name(path)]):
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
        if ast.get_docstring(_parsed(_real_tree()[_module_name(path)])) is None
    ]
    assert missing == []


def test_public_api_is_sorted_and_importable() -> None:
    assert reverie.__all__ == sorted(reverie.__all__)
    for name in reverie.__all__:
        assert getattr(reverie, name) is not None


@pytest.mark.parametrize(
    "package",
    ["reverie", "reverie.memory.modelfree", "reverie.memory.provenance", "reverie.memory.recall"],
)
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


def test_the_architecture_page_maps_the_tree() -> None:
    """docs/architecture.md ends with the module map made from the tree, so it cannot drift."""
    root = SRC.parent.parent
    made = subprocess.run(
        [sys.executable, str(root / "scripts" / "module_map.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    page = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert page.endswith(made), "the map is stale: run scripts/module_map.py --write"
    listed = {line.split("`")[1] for line in made.splitlines() if line.startswith("| `")}
    assert listed == {path.relative_to(SRC).as_posix() for path in _modules()}


def test_no_module_is_named_like_a_junk_drawer() -> None:
    junk = {"utils", "helpers", "common", "misc", "manager"}
    assert not [p for p in _modules() if p.stem in junk]
