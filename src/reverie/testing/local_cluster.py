"""A throwaway PostgreSQL cluster on loopback, for tests and benchmarks (never for real data).

``LocalCluster`` runs ``initdb`` into a fresh temporary folder, starts ``postgres`` on a free
127.0.0.1 port with its socket in that folder, creates a login role that is *not* a superuser
(row-level security does not bind superusers, and the tenancy tests must see it bind) and a
database it owns, and stops and deletes everything on ``close``. PostgreSQL refuses to run as
root, so when this process is root the server runs as the ``postgres`` system user (Debian's
package creates it), which owns the folder.

What it must not do: touch any cluster it did not create, listen anywhere but 127.0.0.1,
or leave a server running after ``close`` (it is stopped with SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from reverie.errors import DatabaseError

APP_ROLE = "reverie_app"
DATABASE = "reverie"


def find_binaries() -> Path | None:
    """Return the folder holding ``initdb`` and ``postgres`` (newest version first), or None."""
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / "initdb").exists() and (folder / "postgres").exists():
            return folder
    initdb = shutil.which("initdb")
    if initdb is not None:
        folder = Path(initdb).resolve().parent
        if (folder / "postgres").exists():
            return folder
    return None


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterInfo:
    """Where a running cluster listens and how to reach its database."""

    port: int
    url: str
    admin_url: str


class LocalCluster:
    """Start a private PostgreSQL cluster; ``url`` reaches its database as a non-superuser."""

    def __init__(self, *, binaries: Path | None = None, durable: bool = False) -> None:
        """Prepare (not start) a cluster.

        Args:
            binaries: the folder of ``initdb`` and ``postgres`` (default: ``find_binaries``).
            durable: keep fsync on (benchmarks); tests turn it off, which is only unsafe for
                a crash of the machine, never of a client.
        """
        found = binaries or find_binaries()
        if found is None:
            raise DatabaseError("no PostgreSQL binaries (initdb) found", where="local cluster")
        self._bin = found
        self._durable = durable
        self._folder = Path(tempfile.mkdtemp(prefix="reverie-pg-"))
        self._process: subprocess.Popen[bytes] | None = None
        self._user = "postgres" if os.geteuid() == 0 else None
        self.info = ClusterInfo(port=0, url="", admin_url="")

    def __enter__(self) -> LocalCluster:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def start(self) -> ClusterInfo:
        """Initialise, start and prepare the cluster; return where it listens."""
        data = self._folder / "data"
        if self._user is not None:
            entry = pwd.getpwnam(self._user)
            os.chown(self._folder, entry.pw_uid, entry.pw_gid)
        initdb = [str(self._bin / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"]
        self._run([*initdb, "-E", "UTF8", "--no-locale", "-N"])
        port = free_port()
        options = ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"]
        if not self._durable:
            options += ["-c", "fsync=off", "-c", "synchronous_commit=off"]
        with (self._folder / "server.log").open("wb") as log:
            self._process = subprocess.Popen(
                [
                    str(self._bin / "postgres"),
                    "-D",
                    str(data),
                    "-p",
                    str(port),
                    "-k",
                    str(self._folder),
                    *options,
                ],
                user=self._user,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        admin = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        self._wait_ready(admin)
        self._prepare(admin)
        url = f"postgresql://{APP_ROLE}@127.0.0.1:{port}/{DATABASE}"
        self.info = ClusterInfo(port=port, url=url, admin_url=admin)
        return self.info

    def close(self) -> None:
        """Stop the server (fast shutdown, then SIGKILL) and delete its folder."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(self._folder, ignore_errors=True)

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run(argv, user=self._user, capture_output=True, check=False)
        if done.returncode != 0:
            raise DatabaseError(
                f"{Path(argv[0]).name} failed: {done.stderr.decode(errors='replace')[-400:]}",
                where="local cluster",
            )

    def _wait_ready(self, admin: str, timeout: float = 30.0) -> None:
        import psycopg  # noqa: PLC0415 (the postgres extra; imported where it is used)

        deadline = time.monotonic() + timeout
        while True:
            if self._process is not None and self._process.poll() is not None:
                log = (self._folder / "server.log").read_text(errors="replace")[-400:]
                raise DatabaseError(f"server exited: {log}", where="local cluster")
            with contextlib.suppress(psycopg.OperationalError):
                psycopg.connect(admin, connect_timeout=2).close()
                return
            if time.monotonic() > deadline:
                raise DatabaseError("server did not start in time", where="local cluster")
            time.sleep(0.05)

    def _prepare(self, admin: str) -> None:
        import psycopg  # noqa: PLC0415

        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS")
            conn.execute(f"CREATE DATABASE {DATABASE} OWNER {APP_ROLE}")
