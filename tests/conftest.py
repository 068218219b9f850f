"""Shared fixtures: a fresh workspace in tmp_path, a controllable clock, a loopback endpoint.

``engine`` is the one engine fixture: a new workspace (a folder, or with ``engine_kind``
overridden, a database's), ``engine_config``'s settings and ``engine_dense``'s dense recall
(a module overrides those fixtures), closed after the test. A module that needs more
(entries, a model) builds on it.

Dense recall is off outside ``tests/dense``: ``[recall] embeddings`` defaults to "auto",
which with the extra installed (the dev install has it) would load the model and encode
every message a test records. Tests open their engines with ``dense="off"``
(``MemoryEngine.open``, ``Openers``; ``reverie.engine.dense_choice``); the CLI and child
processes are configured as a person would, with ``REVERIE_RECALL_EMBEDDINGS=off`` in the
environment, which tests in ``tests/dense`` go without.

In the test process, ``os.fsync`` checks its descriptor and returns without waiting for the
disk (as ``eatmydata`` would, and as the PostgreSQL test cluster runs with ``fsync=off``): a
flush to the platter guards against the machine losing power, which no test can stage, and it
was a sixth of the suite's time. Crashes are staged by killing real subprocesses, and those
keep the real ``fsync``.

Every test also leaves the ``reverie`` logger as it found it: the command line configures it
once per process (``reverie.cli.app``), and under pytest-xdist any test may be the first
in-process command of its worker; a handler left on a closed test stream would break the next.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from reverie.config.settings import Config
from reverie.engine.dense_choice import Dense
from reverie.engine.facade import MemoryEngine
from reverie.storage.folder.workspace import Workspace
from tests.llm.loopback import LoopbackServer

if TYPE_CHECKING:
    from _typeshed import FileDescriptorLike

    from tests.ingest.targets import Target as IngestTarget


class StepClock:
    """A clock that starts at a fixed time and advances by ``step`` on every call."""

    def __init__(
        self, start: datetime | None = None, step: timedelta = timedelta(seconds=1)
    ) -> None:
        self.now = start or datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
        self.step = step

    def __call__(self) -> datetime:
        current = self.now
        self.now += self.step
        return current

    def advance(self, delta: timedelta) -> None:
        self.now += delta


def pytest_configure(config: pytest.Config) -> None:
    """Under xdist, build hypothesis's Unicode tables once, before the workers start.

    A fresh clone has no ``.hypothesis/unicode_data``; each worker's first ``st.text()`` would
    compute the same tables (seconds, more under coverage). Built here, both read the file.
    """
    if hasattr(config, "workerinput") or config.getoption("dist", "no") == "no":
        return
    from hypothesis import strategies

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ``example()`` warns that it is meant for a console
        strategies.text().example()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the modules holding a ``slow`` test first, each module kept whole.

    Under ``-n 2 --dist worksteal`` a long test started last keeps one worker busy while the
    other has nothing left; started first, the short tests fill in around it. A module is moved
    as a whole, so its module fixtures (a browser, a sample workspace) are still set up once.
    """
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow)


@pytest.fixture(autouse=True)
def _reverie_logger() -> Iterator[None]:
    logger = logging.getLogger("reverie")
    handlers, level = list(logger.handlers), logger.level
    yield
    logger.handlers[:] = handlers
    logger.setLevel(level)


def _fsync_without_waiting(fd: FileDescriptorLike) -> None:
    os.fstat(fd if isinstance(fd, int) else fd.fileno())  # a bad descriptor still raises


os.fsync = _fsync_without_waiting


# The CLI's and child processes' setting (see the module docstring).
os.environ["REVERIE_RECALL_EMBEDDINGS"] = "off"


@pytest.fixture(autouse=True)
def _dense_recall_setting(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tests/dense`` runs without the environment's "off" (the settings' "auto" holds)."""
    if request.node.path.parent.name == "dense":
        monkeypatch.delenv("REVERIE_RECALL_EMBEDDINGS")


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def engine_config() -> Config:
    """The settings the ``engine`` fixture opens with; a module overrides this fixture."""
    return Config()


@pytest.fixture
def engine_dense() -> Dense:
    """The ``engine`` fixture's dense recall: "off"; a module overrides it (an encoder)."""
    return "off"


@pytest.fixture
def engine_kind() -> str:
    """Where the ``engine`` fixture's workspace is: "folder" ("postgres": a database's).

    A module runs its tests on both backends with
    ``@pytest.fixture(params=["folder", "postgres"])`` over a fixture of this name.
    """
    return "folder"


@pytest.fixture
def engine(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    clock: StepClock,
    engine_config: Config,
    engine_dense: Dense,
    engine_kind: str,
) -> Iterator[MemoryEngine]:
    """An engine on a new workspace, closed after the test.

    The folder ``tmp_path / "ws"``, or a new workspace of the test database (``engine_kind``);
    settings from ``engine_config`` (no ``REVERIE_*`` variable read), the step clock, and
    ``engine_dense``'s dense recall (none by default).
    """
    where: Path | str = tmp_path / "ws"
    store = None
    if engine_kind == "postgres":
        from tests.postgres.conftest import new_workspace

        store = request.getfixturevalue("pg_url")
        where = new_workspace(store, "engine")
    with MemoryEngine.open(
        where, engine_config, store=store, clock=clock, environ={}, dense=engine_dense
    ) as opened:
        yield opened


@pytest.fixture
def workspace(tmp_path: Path, clock: StepClock) -> Iterator[Workspace]:
    ws = Workspace.open(tmp_path / "ws", create=True, clock=clock)
    yield ws
    ws.close()


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    """A fresh loopback model endpoint on 127.0.0.1, closed after the test."""
    with LoopbackServer() as server:
        yield server


def require_postgres_binaries() -> None:
    """Skip without PostgreSQL's server binaries (initdb), but fail under CI, which has them."""
    from reverie.testing.local_cluster import find_binaries

    if find_binaries() is None:
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail("CI: PostgreSQL binaries are missing (.ci/run installs them)")
        pytest.skip("no PostgreSQL binaries (initdb) on this machine")


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """The URL of a fresh PostgreSQL database (as a non-superuser role), schema applied.

    One throwaway cluster per test session, started on first use (``tests/postgres``).
    """
    pytest.importorskip("psycopg", reason="the postgres extra is not installed")
    from reverie.storage.postgres.database import Database  # the postgres extra
    from reverie.testing.local_cluster import LocalCluster

    require_postgres_binaries()
    with LocalCluster() as cluster:
        database = Database(cluster.info.url)
        try:
            database.init()
        finally:
            database.close()
        yield cluster.info.url


@pytest.fixture(params=["folder", "postgres"])
def ingest_target(
    request: pytest.FixtureRequest, tmp_path: Path, clock: StepClock
) -> Iterator[IngestTarget]:
    """An engine on a folder, then on a PostgreSQL workspace (``tests/ingest/targets.py``)."""
    from tests.ingest.targets import open_target

    target = open_target(request, tmp_path, clock, Config())
    yield target
    target.close()
