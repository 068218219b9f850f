"""What the command line imports to start: a deterministic guard for ``bench/startup.py``.

Start-up time is measured by the benchmark, never asserted here; these tests pin the cause
instead: which heavy packages a fresh interpreter has loaded after ``import reverie.cli``,
after ``reverie --help`` and after ``reverie status``. Each runs in its own interpreter, since
the test process has imported everything already.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reverie.cli.coercion import PlainRuntimeParam

HEAVY = ("anthropic", "dulwich", "openai", "pydantic", "rich")
"""Packages that no command-line start pays for before a command needs them."""

NOT_FOR_STATUS = ("anthropic", "croniter", "openai", "pydantic")
"""Packages ``reverie status`` does without (it reads files; no provider, no cron set)."""

PROGRAM = """
import json, sys
from reverie.cli.app import app
try:
    app(sys.argv[1:], prog_name="reverie")
except SystemExit:
    pass
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})), file=sys.stderr)
"""


def loaded_after(*args: str) -> set[str]:
    """The top-level packages loaded by a fresh interpreter after ``reverie ARGS``."""
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    names: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return set(names)


def test_importing_the_command_line_loads_no_heavy_package() -> None:
    program = "import json, sys, reverie.cli.app; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = {name.split(".")[0] for name in json.loads(done.stdout)}
    assert sorted(loaded & set(HEAVY)) == []


def test_help_loads_no_heavy_package() -> None:
    assert sorted(loaded_after("--help") & set(HEAVY)) == []


def test_status_loads_no_model_sdk_no_pydantic_and_no_cron_parser(tmp_path: Path) -> None:
    from reverie import MemoryEngine

    MemoryEngine.open(tmp_path / "ws", create=True).close()

    loaded = loaded_after("-w", str(tmp_path / "ws"), "status")

    assert sorted(loaded & set(NOT_FOR_STATUS)) == []


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["log", "--number", "2"], "+3 -0"),  # a count typed on the command line
        (["history", "--limit", "5"], "no history entry"),
    ],
)
def test_plain_options_parse_without_pydantic(tmp_path: Path, args: list[str], shown: str) -> None:
    from reverie import MemoryEngine

    MemoryEngine.open(tmp_path / "ws", create=True).close()

    program = PROGRAM.replace(
        "print(json.dumps", "print(repr('pydantic' in sys.modules)); print(json.dumps"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, "-w", str(tmp_path / "ws"), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )

    assert shown in done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"


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
