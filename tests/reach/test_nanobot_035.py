"""nanobot 0.3.5 from the registry: its workspace ingested, and its provider on ``reverie serve``.

nanobot-ai 0.3.5 cannot share reverie's environment (it pins dulwich < 1, mcp < 2, rich < 15,
croniter < 7, anthropic < 1 against reverie's newer ones) and weighs ~390 MB installed, so it
lives in its own virtual environment, ``.cache/bench/nanobot-venv`` (the one ``./dev
bench-compare`` uses), and runs as a subprocess (``tests/reach/nanobot_side.py``). Under CI
(``CI`` set) the fixture installs it there when it is missing; elsewhere the tests skip when it
is missing, saying how to get it. Nothing here fakes nanobot: its own ``MemoryStore`` and
``SessionManager`` write the workspace, its own config loader and provider factory make the
client, and the model behind ``reverie serve`` is the loopback server. ``reverie ingest`` runs
as the user runs it (a process, ``HOME`` as nanobot had it, or another one for a copied
workspace, where it must say where the sessions are and take that folder).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reverie import MemoryEngine
from tests.cli.conftest import clean_env
from tests.llm.loopback import LoopbackServer, chat_text
from tests.reach.conftest import TOKEN, Proxy, start_proxy

VERSION = "0.3.5"
REPO = Path(__file__).resolve().parents[2]
VENV = REPO / ".cache" / "bench" / "nanobot-venv"
SIDE = Path(__file__).with_name("nanobot_side.py")
RECIPES = REPO / "docs" / "recipes.md"
HISTORY, CONSUMED = 30, 10

pytestmark = pytest.mark.slow


def _installed(python: Path) -> bool:
    probe = "import importlib.metadata as m; print(m.version('nanobot-ai'))"
    if not python.exists():
        return False
    found = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=False)
    return found.returncode == 0 and found.stdout.strip() == VERSION


@pytest.fixture(scope="session")
def nanobot() -> Path:
    """nanobot's Python (installing nanobot-ai there under CI, one worker at a time)."""
    python = VENV / "bin" / "python"
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with (VENV.parent / "nanobot-venv.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _installed(python):
            return python
        if not os.environ.get("CI"):
            pytest.skip(
                f"nanobot-ai {VERSION} is not in {VENV} (its own venv: its pins conflict with "
                "reverie's); CI installs it, or run with CI=1, or ./dev bench-compare"
            )
        base = str(getattr(sys, "_base_executable", sys.executable))
        if not python.exists():
            subprocess.run([base, "-m", "venv", str(VENV)], check=True)
        pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run([*pip, f"nanobot-ai=={VERSION}"], check=True, timeout=900)
    return python


def _side(nanobot: Path, home: Path, *args: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REVERIE_", "NANOBOT_"))}
    done = subprocess.run(
        [str(nanobot), str(SIDE), *args],
        env=env | {"HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def _ingest(home: Path, target: Path, *sources: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(target), "ingest", *map(str, sources)],
        env=clean_env(home, target) | {"COLUMNS": "400"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def ingested(nanobot: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryEngine]:
    """A workspace nanobot wrote, then ``reverie ingest`` of it as a user runs it."""
    home = tmp_path_factory.mktemp("home")
    workspace, target = home / ".nanobot" / "workspace", home / "reverie"
    _side(nanobot, home, "workspace", str(workspace))
    assert "0 problem(s)" in _ingest(home, target, workspace)
    with MemoryEngine.open(
        target, environ={"REVERIE_RECALL_EMBEDDINGS": "off"}, dense="off"
    ) as engine:
        yield engine


def _history_hits(engine: MemoryEngine, text: str) -> list[str]:
    hits = engine.search(text, limit=50)
    return [h.snippet.replace("**", "") for h in hits if h.kind == "history"]


def test_nanobots_session_arrives_without_its_hidden_turn(ingested: MemoryEngine) -> None:
    (key,) = [info.key for info in ingested.sessions() if info.key.startswith("import:")]
    said = [(m.role, m.text) for m in ingested.session(key).messages]
    assert said == [
        ("user", "I am moving to Oslo in May."),
        ("assistant", "Noted: Oslo in May."),
        ("user", "Raised beds, please."),
        ("assistant", "Raised beds it is."),
    ]  # the `_hidden_history` continuation turn is nanobot's own, not the person's
    assert any("garden in Bergen" in s for s in _history_hits(ingested, "garden Bergen"))


def test_the_history_nanobot_had_not_dreamt_arrives_in_history(
    ingested: MemoryEngine,
) -> None:
    for number in range(CONSUMED, HISTORY):
        wanted = f"Mia noted garden fact number {number}."
        assert wanted in _history_hits(ingested, f"garden fact number {number}")


def test_the_history_nanobots_dream_consumed_arrives_as_consumed(ingested: MemoryEngine) -> None:
    durable = "".join(ingested.read_memory(name) for name in ("SOUL", "USER", "MEMORY"))
    for number in range(CONSUMED):
        wanted = f"Mia noted garden fact number {number}."
        assert wanted in _history_hits(ingested, f"garden fact number {number}")
        assert f"fact number {number}." not in durable  # consumed: not dreamt a second time


def test_a_workspace_copied_from_another_home_says_where_its_sessions_are(
    nanobot: Path, tmp_path: Path
) -> None:
    written = _side(nanobot, tmp_path / "home", "workspace", str(tmp_path / "ws"))
    elsewhere = tmp_path / "elsewhere"  # the workspace copied, its sessions left behind
    elsewhere.mkdir()
    said = " ".join(_ingest(elsewhere, tmp_path / "r", tmp_path / "ws").split())
    assert "imported 0 session(s)" in said
    workspace_id = Path(written["sessions_dir"]).name
    assert f"{elsewhere}/.nanobot/sessions/{workspace_id}, which does not exist here" in said
    said = _ingest(elsewhere, tmp_path / "r", tmp_path / "ws", Path(written["sessions_dir"]))
    assert "imported 1 session(s)" in said


def _recipe_config(base_url: str) -> dict[str, Any]:
    section = RECIPES.read_text(encoding="utf-8").split("\n## nanobot with", 1)[1]
    block = re.findall(r"```json\n(.*?)```", section.split("\n## ", 1)[0], flags=re.DOTALL)
    config: dict[str, Any] = json.loads(block[0])
    custom = config["providers"]["custom"]
    assert custom["apiBase"] == "http://127.0.0.1:8765/v1"
    custom["apiBase"], custom["apiKey"] = f"{base_url}/v1", TOKEN
    return config


@pytest.fixture
def proxy(tmp_path: Path, loopback: LoopbackServer) -> Iterator[Proxy]:
    yield from start_proxy(tmp_path, loopback)


def test_nanobots_own_provider_talks_to_reverie_serve_with_the_recipes_config(
    nanobot: Path, proxy: Proxy, tmp_path: Path
) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps(_recipe_config(proxy.url)), encoding="utf-8")
    proxy.upstream.script(chat_text("Hi Mia."), chat_text("You plan raised beds."))
    done = _side(nanobot, tmp_path, "ask", str(config), "I am Mia.", "What do I plan?")

    assert done["answers"] == ["Hi Mia.", "You plan raised beds."]
    assert proxy.upstream.unscripted == []
    assert [r.path for r in proxy.upstream.requests] == ["/v1/chat/completions"] * 2
    sent = proxy.upstream.requests[-1].json()["messages"]
    assert isinstance(sent, list)
    system = sent[0]
    assert isinstance(system, dict)
    assert "You are nanobot." in str(system["content"])  # appended to reverie's own
    assert proxy.texts("nanobot:main") == [
        ("user", "I am Mia."),
        ("assistant", "Hi Mia."),
        ("user", "What do I plan?"),
        ("assistant", "You plan raised beds."),
    ]
