"""Plain values without pydantic: what keeps ``reverie status`` from importing it.

Typer (0.29) converts every non-flag option through a pydantic ``TypeAdapter``, built the first
time the option is processed, even when its value is the default ``None``. Importing pydantic
and building one adapter costs more than the rest of ``reverie status`` together. The command
line's own options are plain: ``str``, ``Path`` and bounded ``int``. ``plain_values`` gives each
parameter of a command tree a coercion that handles those values directly and hands anything
else (a string for an ``int``, a list, a file) to typer's own adapter, built only then, so
every message about a bad value stays typer's.

This uses typer's runtime-coercion seam (``typer._coercion.RuntimeParam`` and the parameter's
``_runtime_param`` slot), pinned by ``typer>=0.29.2,<0.30`` in ``pyproject.toml``;
``tests/cli/test_startup.py`` fails if pydantic is imported again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typer import _click as click
from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
from typer._param_types import coerce_cli_path
from typer.core import TyperGroup, _TyperParameter


@dataclass(frozen=True)
class PlainRuntimeParam(RuntimeParam):
    """Coerce plain values directly; build typer's adapter only for anything else."""

    descriptor: TypeDescriptor

    def _coerce_value(self, value: Any, param: _TyperParameter, ctx: click.Context) -> Any:
        info = self.parameter_info
        if self.annotation is str and isinstance(value, str):
            return value
        if self.annotation is Path and isinstance(value, str) and not info.allow_dash:
            # With a Path in hand, typer's own path checks run without pydantic.
            return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
        if self.annotation is int:
            number = int(value) if isinstance(value, str) and _digits(value) else value
            if _within(number, info.min, info.max):
                return number
        return build_runtime_param(self.descriptor).coerce(value, param=param, ctx=ctx)


def _digits(text: str) -> bool:
    """Only ASCII digits: a plain count (anything else gets typer's parsing and messages)."""
    return text.isascii() and text.isdigit()


def _within(value: Any, low: float | None, high: float | None) -> bool:
    """``value`` is an ``int`` (not a bool) inside the option's bounds."""
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    return (low is None or value >= low) and (high is None or value <= high)


def plain_values(command: click.Command) -> None:
    """Give every typer parameter under ``command`` the plain coercion (before any parsing).

    The ``--help`` option is made on first use and cached; it is made here so it is covered too.
    """
    help_option = command.get_help_option(click.Context(command))
    for param in [*command.params, *([help_option] if help_option else [])]:
        # typer's coercion slot (see the module docstring); typer fills it on first use.
        if isinstance(param, _TyperParameter) and param._runtime_param is None:  # noqa: SLF001
            descriptor = param.type_descriptor
            param._runtime_param = PlainRuntimeParam(  # noqa: SLF001
                parameter_info=descriptor.parameter_info,
                annotation=descriptor.annotation,
                descriptor=descriptor,
            )
    if isinstance(command, TyperGroup):
        for child in command.commands.values():
            plain_values(child)
