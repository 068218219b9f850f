"""Reading the history log without a lock: complete lines, bisecting by cursor, the last cursor.

These functions work on an open file. Lines are in increasing cursor order as reverie writes
them (bisection relies on it); a line another program wrote at the same moment may break that
order locally, which costs such a line its place in a bisected read, never a crash. A final
line without its newline may still be being written (so it is ignored). Bad lines are skipped
here; ``HistoryLog.repair`` quarantines them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from typing import BinaryIO

from reverie.core.entries import EntryFormatError, HistoryEntry

BISECT_STOP = 2 * 1024
"""Below this many bytes between the bounds, a forward scan is cheaper than more probes."""
_CURSOR_PREFIX = re.compile(rb'\{"cursor": ?([1-9][0-9]{0,18})[,}]')


def complete_lines(handle: BinaryIO) -> Iterator[bytes]:
    """Yield lines that end with a newline; a partial final line may be a write in progress."""
    for line in handle:
        if not line.endswith(b"\n"):
            return
        yield line


def _probe(handle: BinaryIO, offset: int, stop: int) -> tuple[int, int] | None:
    """Return (start, cursor) of the first valid line starting in [offset, stop), if any."""
    handle.seek(offset)
    if offset > 0:
        handle.seek(offset - 1)
        handle.readline()  # finish the line that ``offset`` falls inside
    while (start := handle.tell()) < stop:
        line = handle.readline()
        if not line.endswith(b"\n"):
            return None
        quick = quick_cursor(line)
        if quick is not None:
            return start, quick
        try:
            return start, HistoryEntry.from_line(line).cursor
        except EntryFormatError:
            continue
    return None


def bisect(handle: BinaryIO, cursor: int) -> int:
    """Return a line start at or before the first line whose cursor is above ``cursor``."""
    lo, hi = 0, os.fstat(handle.fileno()).st_size
    while hi - lo > BISECT_STOP:
        mid = (lo + hi) // 2
        found = _probe(handle, mid, hi)
        if found is None:
            hi = mid
        elif found[1] > cursor:
            hi = found[0]
        else:
            handle.seek(found[0])
            lo = found[0] + len(handle.readline())
    return lo


def highest_cursor_in(fd: int, start: int, end: int) -> int:
    """Return the highest cursor of the complete lines in bytes ``[start, end)`` (0 if none).

    Every line counts, not just the last: another program appending at the same moment may
    leave a line whose cursor is below one before it. Unparseable lines are skipped (repair
    quarantines them).
    """
    highest, position, carry = 0, start, b""
    while position < end:
        chunk = os.pread(fd, min(1 << 20, end - position), position)
        if not chunk:
            break
        position += len(chunk)
        *lines, carry = (carry + chunk).split(b"\n")
        for line in lines:
            highest = max(highest, _cursor_of(line))
    return highest


def _cursor_of(line: bytes) -> int:
    quick = quick_cursor(line)
    if quick is not None:
        return quick
    if not line.strip():
        return 0
    try:
        return HistoryEntry.from_line(line).cursor
    except EntryFormatError:
        return 0


def count_lines_before(fd: int, offset: int) -> int:
    """Return how many newlines precede byte ``offset`` (the line number of a torn tail)."""
    count, position = 0, 0
    while position < offset:
        chunk = os.pread(fd, min(1 << 20, offset - position), position)
        count += chunk.count(b"\n")
        position += len(chunk)
    return count


def count_passed(lines: list[bytes], cursor: int) -> int:
    """Return how many leading ``lines`` (valid, in cursor order) have a cursor <= ``cursor``."""
    lo, hi = 0, len(lines)
    while lo < hi:
        mid = (lo + hi) // 2
        if HistoryEntry.from_line(lines[mid]).cursor <= cursor:
            lo = mid + 1
        else:
            hi = mid
    return lo


def quick_cursor(line: bytes) -> int | None:
    """Return the cursor of a line written in reverie's own key order without parsing it all.

    None when the line does not start that way; the caller then parses it fully.
    """
    match = _CURSOR_PREFIX.match(line)
    return int(match.group(1)) if match else None


def lines_backwards(handle: BinaryIO, chunk: int = 64 * 1024) -> Iterator[bytes]:
    """Yield the file's complete lines from the last to the first (newlines stripped).

    A final line without its newline (an append in progress) is skipped.
    """
    position = _complete_end(handle, chunk) - 1  # drop the last newline itself
    carry = b""
    while position > 0:
        step = min(chunk, position)
        position -= step
        handle.seek(position)
        lines = (handle.read(step) + carry).split(b"\n")
        carry = lines[0]
        yield from reversed(lines[1:])
    if position == 0 and (carry or _ends_at_first_line(handle)):
        yield carry


def _complete_end(handle: BinaryIO, chunk: int) -> int:
    """Return the offset just past the file's last newline (0 when it has none)."""
    end = os.fstat(handle.fileno()).st_size
    while end > 0:
        step = min(chunk, end)
        handle.seek(end - step)
        newline = handle.read(step).rfind(b"\n")
        if newline >= 0:
            return end - step + newline + 1
        end -= step
    return 0


def _ends_at_first_line(handle: BinaryIO) -> bool:
    """True when the file starts with a newline (an empty first line is still a line)."""
    handle.seek(0)
    return handle.read(1) == b"\n"


def entries_after(
    handle: BinaryIO, cursor: int, limit: int | None
) -> tuple[list[HistoryEntry], bool]:
    """Entries above ``cursor`` in file order, at most ``limit``.

    Returns:
        The entries, and whether a bad line stopped the read (the caller repairs, reads again).
    """
    entries: list[HistoryEntry] = []
    handle.seek(bisect(handle, cursor))
    for line in complete_lines(handle):
        if limit is not None and len(entries) >= limit:
            break
        quick = quick_cursor(line)
        if quick is not None and quick <= cursor:
            continue  # before the start: skip without a full parse
        try:
            entry = HistoryEntry.from_line(line)
        except EntryFormatError:
            if line.strip():
                return entries, True
            continue
        if entry.cursor > cursor:
            entries.append(entry)
    return entries, False


def newest_after(
    handle: BinaryIO,
    since: int,
    *,
    limit: int,
    needle: bytes | None,
    accept: Callable[[HistoryEntry], bool] | None,
    max_lines: int,
) -> list[HistoryEntry]:
    """Up to ``limit`` newest entries above ``since``, newest first, reading backwards."""
    found: list[HistoryEntry] = []
    for seen, line in enumerate(lines_backwards(handle)):
        quick = quick_cursor(line)
        if (quick is not None and quick <= since) or len(found) >= limit or seen >= max_lines:
            break
        if not line.strip() or (needle is not None and needle not in line):
            continue
        try:
            entry = HistoryEntry.from_line(line)
        except EntryFormatError:
            continue
        if entry.cursor <= since:
            break
        if accept is None or accept(entry):
            found.append(entry)
    return found
