"""A parent that imports a worker module once and forks one real child process per request.

The kill tests start a worker, SIGKILL it at some instant and look at what it left, many times
over. A fresh interpreter per round spends most of its time importing; a child forked from an
imported parent starts at once, and is still a separate process with its own pid, files and
database connections that a SIGKILL ends as abruptly. ``Server`` is the test's side.

Usage: ``forkserver.py MODULE``. Imports MODULE (``tests.store.history_worker``...), runs its
``warm()`` if it has one (work that loads what the first real call would import lazily, in a
scratch place of its own, everything closed again before any fork), prints ``ready``, then
for each line of tab-separated arguments on stdin forks a child that runs
``MODULE.main(arguments)`` with its output on this process's stdout, prints ``pid N`` before
the child writes anything and ``exit STATUS`` once it ended (STATUS as ``Popen.returncode``:
``-9`` after a SIGKILL). A line whose first argument is ``&OUTPUT`` forks a child writing
to the file OUTPUT instead and returns at once (``pid N``), so several run side by side; a
line ``wait<TAB>PID`` waits for that one (``exit STATUS``). The parent keeps nothing open a
child shares.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Protocol, cast

ROOT = Path(__file__).parents[1]


class _Worker(Protocol):
    def main(self, argv: list[str]) -> None: ...


def _child(worker: _Worker, argv: list[str], go: int) -> None:
    os.read(go, 1)  # the parent has printed this child's pid
    os.close(go)
    status = 0
    try:
        worker.main(argv)
    except BaseException:  # noqa: BLE001 -- a child reports by exit status and stderr
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    os._exit(status)


def _start(worker: _Worker, output: str, argv: list[str]) -> int:
    """Fork a child writing to the file ``output``, print its pid and return it at once."""
    pid = os.fork()
    if pid == 0:
        os.dup2(os.open(output, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), 1)
        go, ready = os.pipe()
        os.write(ready, b"x")
        _child(worker, argv, go)
    print(f"pid {pid}", flush=True)
    return pid


def serve(module: str) -> None:
    """Fork a child running ``module.main`` per stdin line until stdin closes."""
    worker = cast(_Worker, importlib.import_module(module))
    warm = getattr(worker, "warm", None)
    if warm is not None:
        warm()
    print("ready", flush=True)
    running: set[int] = set()  # side-by-side children not yet waited for
    for line in sys.stdin:
        argv = line.rstrip("\n").split("\t") if line.strip() else []
        if argv and argv[0].startswith("&"):
            running.add(_start(worker, argv[0][1:], argv[1:]))
            continue
        if argv and argv[0] == "wait":
            running.discard(int(argv[1]))
            _, status = os.waitpid(int(argv[1]), 0)
            print(f"exit {os.waitstatus_to_exitcode(status)}", flush=True)
            continue
        go, ready = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(ready)
            _child(worker, argv, go)
        os.close(go)
        print(f"pid {pid}", flush=True)
        os.write(ready, b"x")
        os.close(ready)
        _, status = os.waitpid(pid, 0)
        # A child killed mid-line leaves no newline: "exit" starts a line of its own.
        print(f"\nexit {os.waitstatus_to_exitcode(status)}", flush=True)
    for pid in running:  # a test that failed left them: they end with the server
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


class Child:
    """One forked child of a ``Server``: its pid, its output lines, its exit status."""

    def __init__(self, server: Server, pid: int) -> None:
        self.server = server
        self.pid = pid
        self.returncode: int | None = None

    def readline(self) -> str:
        """The child's next output line ("" once it ended)."""
        if self.returncode is not None:
            return ""
        line = self.server.line()
        if line.startswith("exit "):
            self.returncode = int(line.split()[1])
            return ""
        return line

    def alive(self) -> bool:
        """Whether the child is still running (the server reaps it as soon as it ends)."""
        if self.returncode is not None:
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def kill(self) -> None:
        """SIGKILL the child (it may have ended already)."""
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):  # ended, not yet reaped
                os.kill(self.pid, signal.SIGKILL)

    def finish(self) -> str:
        """Every remaining output line once the child ended (empty lines dropped)."""
        lines = []
        while (line := self.readline()) or self.returncode is None:
            if line.strip():
                lines.append(line)
        return "".join(lines)


class Background:
    """A child of a ``Server`` running alongside others, its output in a file of its own."""

    def __init__(self, server: Server, pid: int, output: Path) -> None:
        self.server = server
        self.pid = pid
        self.output = output
        self.returncode: int | None = None
        self._read = 0

    def readline(self, timeout: float = 60.0) -> str:
        """The child's next whole output line, waiting for it ("" if none came before the
        child ended or ``timeout`` passed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ended = self.ended()  # looked at before reading: a last line is not missed
            lines = self.lines()
            if len(lines) > self._read:
                self._read += 1
                return lines[self._read - 1] + "\n"
            if ended:
                return ""
            time.sleep(0.002)
        return ""

    def ended(self) -> bool:
        """Whether the child has exited (it stays a zombie until ``finish`` reaps it)."""
        if self.returncode is not None:
            return True
        try:
            stat = Path(f"/proc/{self.pid}/stat").read_text(encoding="ascii")
        except FileNotFoundError:
            return True
        return stat.rsplit(")", 1)[1].split()[0] == "Z"  # the state follows "(name)"

    def lines(self) -> list[str]:
        """Every whole line the child has written so far."""
        text = self.output.read_text(encoding="utf-8") if self.output.exists() else ""
        return text.splitlines()[: text.count("\n")]

    def kill(self) -> None:
        """SIGKILL the child (a child that ended is a zombie until ``finish``: no error)."""
        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)

    def finish(self) -> str:
        """Wait for the child to end; every whole line it wrote."""
        if self.returncode is None:
            assert self.server.process.stdin is not None
            self.server.process.stdin.write(f"wait\t{self.pid}\n")
            self.server.process.stdin.flush()
            line = self.server.line()
            assert line.startswith("exit "), line
            self.returncode = int(line.split()[1])
        return "".join(line + "\n" for line in self.lines())


class Server:
    """The test's side of ``forkserver.py MODULE``: fork children and read what they say."""

    def __init__(self, module: str) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        self.process = subprocess.Popen(
            [sys.executable, __file__, module],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
        )
        assert self.line() == "ready\n", f"the fork server for {module} did not start"

    def line(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the fork server ended"
        return line

    def spawn(self, *argv: str) -> Child:
        """Fork a child running the module's ``main(argv)``; the previous one must have ended."""
        assert self.process.stdin is not None
        self.process.stdin.write("\t".join(argv) + "\n")
        self.process.stdin.flush()
        head = self.line()
        assert head.startswith("pid "), head
        return Child(self, int(head.split()[1]))

    def start(self, output: Path, *argv: str) -> Background:
        """Fork a child running the module's ``main(argv)`` with its output in the file
        ``output``, and return at once: several run side by side; ``finish`` each."""
        assert self.process.stdin is not None
        self.process.stdin.write("\t".join([f"&{output}", *argv]) + "\n")
        self.process.stdin.flush()
        head = self.line()
        assert head.startswith("pid "), head
        return Background(self, int(head.split()[1]), output)

    def close(self) -> None:
        end(self.process)


def end(process: subprocess.Popen[str]) -> None:
    """Close a worker's input (so it ends), wait for it, then close its output."""
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.close()
    process.wait(timeout=30)
    process.stdout.close()


if __name__ == "__main__":
    serve(sys.argv[1])
