"""A database reverie cannot reach is one clear line at once, with no password in it.

The URL is the test cluster's, with its password, pointed at a port where nothing listens
(and at a host that does not resolve). Each command runs as a real process, as a person runs
it: ``status`` on a database workspace, ``store list``, ``store init``. Before, the pool
retried in the background for 30 s, printing a warning per attempt, and ended in "no
connection free in time".
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from reverie.errors import DatabaseUnreachableError
from reverie.storage.postgres.database import Database

PASSWORD = "s3cret-Tr0ub4dor"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _elsewhere(pg_url: str, **change: str) -> str:
    parts = {**conninfo_to_dict(pg_url), "password": PASSWORD, **change}
    return "postgresql://{user}:{password}@{host}:{port}/{dbname}".format(
        **{key: parts.get(key, "") for key in ("user", "password", "host", "port", "dbname")}
    )


@pytest.mark.parametrize(
    "args",
    [("-w", "team", "status"), ("store", "list"), ("store", "init", "-w", "team")],
    ids=["status", "store-list", "store-init"],
)
def test_an_unreachable_database_is_one_line_naming_it(
    tmp_path: Path, pg_url: str, args: tuple[str, ...]
) -> None:
    port = str(_free_port())
    url = _elsewhere(pg_url, host="127.0.0.1", port=port)
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env |= {"HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "reverie", "--store", url, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=25,  # the old pool waited 30 s
        check=False,
    )
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert line.startswith(f"error: cannot reach the database at postgresql://127.0.0.1:{port}/")
    assert PASSWORD not in done.stderr
    assert "error connecting" not in done.stderr  # no pool warnings


def test_the_sdk_raises_a_typed_error_for_a_host_that_does_not_resolve(pg_url: str) -> None:
    url = make_conninfo(_elsewhere(pg_url), host="no-such-host.invalid")
    with pytest.raises(DatabaseUnreachableError, match=r"no-such-host\.invalid") as raised:
        Database(url)
    assert PASSWORD not in str(raised.value)


def test_a_reachable_database_still_opens(pg_url: str) -> None:
    database = Database(pg_url)
    try:
        assert isinstance(database.workspaces(), list)
    finally:
        database.close()
