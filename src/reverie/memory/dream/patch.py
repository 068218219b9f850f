r"""Applying a model-written unified-diff patch to one file's text.

This module owns the patch format dream accepts and the rules for placing hunks; it does no
I/O and knows nothing about paths (the tool layer confines the file first).

Format: optional ``---``/``+++`` (and ``diff``/``index``) header lines, then one or more hunks.
A hunk starts with ``@@ -a,b +c,d @@`` (the counts may be left out, and a bare ``@@`` without
numbers is accepted); its lines start with ``' '`` (context), ``'-'`` (removed), ``'+'``
(added) or ``'\'`` (``\ No newline at end of file``, which applies to the line before it).
An empty line inside a hunk counts as an empty context line, since editors and models often
strip the lone space. The counts in the header are not enforced: models get them wrong, and the
hunk's own lines say what to match. A patch touches one file; a second file header is refused.

Placement: hunks apply in order, each after the previous one. The old side of a hunk (context
plus removed lines) must match the file exactly at one place; when it matches at the line the
header names (shifted by earlier hunks) that place wins, otherwise the whole file is searched and
exactly one match must exist, so a wrong line number is tolerated but an ambiguous hunk is
refused. If no exact match exists, a match ignoring trailing whitespace is tried the same way.
Context lines keep the file's own text. A hunk with no old lines (a pure insertion) needs a line
number. Failures raise ``PatchError`` naming the hunk, the patch line and the file line that did
not match, so the model can fix its patch.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from reverie.errors import PatchError

_HEADER = re.compile(r"@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@.*")
_PREAMBLE = ("--- ", "+++ ", "diff ", "index ")
_SHOWN = 80


@dataclass(frozen=True, slots=True, kw_only=True)
class Hunk:
    """One parsed hunk: its operations in order and where the patch said it applies."""

    number: int
    patch_line: int
    old_start: int | None
    ops: tuple[tuple[str, str, int], ...]
    """(kind ' ', '-' or '+', text, 1-based patch line) for each hunk line."""
    old_no_newline: bool
    new_no_newline: bool

    @property
    def old(self) -> list[str]:
        """The lines the file must hold where the hunk applies (context and removed)."""
        return [text for kind, text, _ in self.ops if kind != "+"]

    @property
    def new_length(self) -> int:
        """How many lines the hunk leaves in place of its old lines."""
        return sum(1 for kind, _, _ in self.ops if kind != "-")


def apply_patch(text: str, patch: str) -> str:
    """Apply a unified-diff ``patch`` to ``text`` and return the new text.

    Raises:
        PatchError: the patch is malformed, or a hunk does not match exactly one place.
    """
    hunks = parse_patch(patch)
    lines, final_newline = _split(text)
    floor = 0
    shift = 0
    for hunk in hunks:
        at = _place(hunk, lines, floor=floor, shift=shift)
        old_length = len(hunk.old)
        reaches_end = at + old_length == len(lines)
        lines[at : at + old_length] = _replacement(hunk, lines[at : at + old_length])
        if reaches_end and hunk.new_no_newline:
            final_newline = False
        elif reaches_end and hunk.old_no_newline:
            final_newline = True
        floor = at + hunk.new_length
        if hunk.old_start is not None:
            shift = floor - (_hint_base(hunk) + old_length)
    return "\n".join(lines) + ("\n" if final_newline and lines else "")


def parse_patch(patch: str) -> list[Hunk]:
    """Parse a patch into hunks (see the module docstring for the accepted format).

    Raises:
        PatchError: no hunk, a line outside the format, or a second file in the patch.
    """
    rows = patch.split("\n")
    while rows and rows[-1].strip() == "":
        rows.pop()
    starts = [index for index, row in enumerate(rows) if row.startswith("@@")]
    if not starts:
        raise PatchError("the patch has no hunk: a hunk starts with '@@ -a,b +c,d @@'")
    for index, row in enumerate(rows[: starts[0]]):
        if row.strip() and not row.startswith(_PREAMBLE):
            raise PatchError(
                f"patch line {index + 1} ({_show(row)}) comes before the first '@@' hunk header",
                line=index + 1,
            )
    bounds = [*starts, len(rows)]
    return [
        _parse_hunk(rows, start=bounds[n], stop=bounds[n + 1], number=n + 1)
        for n in range(len(starts))
    ]


def _parse_hunk(rows: list[str], *, start: int, stop: int, number: int) -> Hunk:
    header = _HEADER.fullmatch(rows[start])
    ops: list[tuple[str, str, int]] = []
    no_newline = {"-": False, "+": False}
    for index in range(start + 1, stop):
        row, line = rows[index], index + 1
        if row.startswith("--- ") and index + 1 < stop and rows[index + 1].startswith("+++ "):
            raise PatchError(
                f"patch line {line} starts a second file; send one apply_patch call per file",
                hunk=number,
                line=line,
            )
        kind = row[:1] or " "
        if kind in " -+":
            ops.append((kind, row[1:], line))
        elif kind == "\\" and ops:
            previous = ops[-1][0]
            for side in ("-", "+"):
                no_newline[side] = no_newline[side] or previous in (side, " ")
        else:
            raise PatchError(
                f"hunk {number}, patch line {line} ({_show(row)}): every hunk line must start "
                "with ' ' (context), '-' (removed), '+' (added) or '\\' (no newline marker)",
                hunk=number,
                line=line,
            )
    if not ops:
        raise PatchError(
            f"hunk {number} (patch line {start + 1}) has no lines", hunk=number, line=start + 1
        )
    return Hunk(
        number=number,
        patch_line=start + 1,
        old_start=int(header.group(1)) if header else None,
        ops=tuple(ops),
        old_no_newline=no_newline["-"],
        new_no_newline=no_newline["+"],
    )


def _split(text: str) -> tuple[list[str], bool]:
    if text == "":
        return [], True
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
        return lines, True
    return lines, False


def _hint_base(hunk: Hunk) -> int:
    """0-based index the header names: the first old line, or the insertion point."""
    start = hunk.old_start or 0
    return start if not hunk.old else max(start - 1, 0)


def _place(hunk: Hunk, lines: list[str], *, floor: int, shift: int) -> int:
    hint = None if hunk.old_start is None else _hint_base(hunk) + shift
    old = hunk.old
    if not old:
        if hint is None or not floor <= hint <= len(lines):
            raise PatchError(
                f"hunk {hunk.number} (patch line {hunk.patch_line}) only adds lines; it needs a "
                f"correct '@@ -a,0 +c,d @@' line number between {floor} and {len(lines)}",
                hunk=hunk.number,
                line=hunk.patch_line,
            )
        return hint
    for same in (_exact, _loose):
        found = [
            at for at in range(floor, len(lines) - len(old) + 1) if _matches(lines, at, old, same)
        ]
        if hint in found:
            return hint
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise PatchError(
                f"hunk {hunk.number} (patch line {hunk.patch_line}) matches "
                f"{len(found)} places (file lines {', '.join(str(at + 1) for at in found[:10])}); "
                "add context lines so it matches only one",
                hunk=hunk.number,
                line=hunk.patch_line,
            )
    raise _mismatch(hunk, lines, floor=floor, hint=hint)


def _exact(left: str, right: str) -> bool:
    return left == right


def _loose(left: str, right: str) -> bool:
    return left.rstrip() == right.rstrip()


def _matches(lines: list[str], at: int, old: list[str], same: Callable[[str, str], bool]) -> bool:
    return all(same(lines[at + offset], want) for offset, want in enumerate(old))


def _replacement(hunk: Hunk, matched: list[str]) -> list[str]:
    """The hunk's new lines, keeping the file's own text for context lines."""
    result: list[str] = []
    position = 0
    for kind, text, _ in hunk.ops:
        if kind == " ":
            result.append(matched[position])
        elif kind == "+":
            result.append(text)
        position += kind != "+"
    return result


def _mismatch(hunk: Hunk, lines: list[str], *, floor: int, hint: int | None) -> PatchError:
    """Explain where the hunk comes closest to matching and which line breaks it."""
    old = hunk.old
    patch_lines = [line for kind, _, line in hunk.ops if kind != "+"]
    best_at, best_len = floor, -1
    for at in range(floor, len(lines)):
        length = 0
        while (
            at + length < len(lines)
            and length < len(old)
            and _loose(lines[at + length], old[length])
        ):
            length += 1
        closer = hint is not None and abs(at - hint) < abs(best_at - hint)
        if length > best_len or (length == best_len and closer):
            best_at, best_len = at, length
    where = f"hunk {hunk.number} (patch line {hunk.patch_line}) does not match the file"
    if best_len <= 0:
        return PatchError(
            f"{where}: its first old line {_show(old[0])} (patch line {patch_lines[0]}) is not "
            f"in the file{f' after line {floor}' if floor else ''}; read the file and copy "
            "context lines exactly",
            hunk=hunk.number,
            line=patch_lines[0],
        )
    file_line = best_at + best_len
    found = _show(lines[file_line]) if file_line < len(lines) else "the end of the file"
    return PatchError(
        f"{where}: from file line {best_at + 1} its lines agree up to patch line "
        f"{patch_lines[best_len - 1]}, but patch line {patch_lines[best_len]} expects "
        f"{_show(old[best_len])} where file line {file_line + 1} is {found}",
        hunk=hunk.number,
        line=patch_lines[best_len],
    )


def _show(text: str) -> str:
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "…")
