"""``reverie serve`` as a real subprocess: the printed token, the proxy, the refusals."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import openai
import pytest
from typer.testing import CliRunner

from reverie.cli import app
from reverie.engine.owners import SqliteTokenBook
from tests.cli.conftest import clean_env
from tests.llm.loopback import LoopbackServer, chat_text
from tests.reach.running import free_port


@pytest.fixture
def served(tmp_path: Path, loopback: LoopbackServer) -> Iterator[tuple[str, str]]:
    """``reverie serve`` on a free port in front of ``loopback``: (base URL, printed token)."""
    SqliteTokenBook(tmp_path / ".home" / "tokens.sqlite3")  # the home's book, empty yet
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "reverie.toml").write_text(
        f'[model]\nbase_url = "{loopback.base_url}"\nmodel = "chat-model"\n', encoding="utf-8"
    )
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "reverie", "serve", "-w", str(workspace), "--port", str(port)],
        env=clean_env(tmp_path, workspace),
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    try:
        token, printed = "", []
        while not token:
            line = proc.stderr.readline()
            assert line, f"reverie serve exited: {proc.wait()}"
            printed.append(line)
            token = line.removeprefix("token:").strip() if line.startswith("token:") else ""
        url = f"http://127.0.0.1:{port}"
        assert f"viewer: {url}/?token={token}\n" in printed  # the link docs/viewer.md promises
        assert any(f"serving the home {tmp_path} (default principal 'ws')" in x for x in printed)
        yield url, token
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        proc.stderr.close()


def _connect(url: str, token: str) -> openai.OpenAI:
    deadline = time.monotonic() + 20
    client = openai.OpenAI(base_url=url + "/v1", api_key=token, max_retries=0, timeout=10)
    while True:
        try:
            client.models.list()
            return client
        except openai.APIConnectionError:
            if time.monotonic() > deadline:
                client.close()
                raise
            time.sleep(0.05)
        except openai.APIStatusError:
            client.close()
            raise


@pytest.mark.slow
def test_reverie_serve_prints_a_token_and_proxies_with_memory(
    served: tuple[str, str], loopback: LoopbackServer, tmp_path: Path
) -> None:
    url, token = served
    loopback.script(chat_text("Hello from upstream."))
    with _connect(url, token) as client:
        reply = client.chat.completions.create(
            model="chat-model",
            messages=[{"role": "user", "content": "hello"}],
            extra_headers={"X-Reverie-Session": "cli:test"},
        )
    assert reply.choices[0].message.content == "Hello from upstream."
    (body,) = loopback.bodies()
    assert body["model"] == "chat-model"
    # The server's own token reaches the selected workspace: the default principal "ws".
    assert sorted(p.name for p in tmp_path.iterdir() if (p / "memory").is_dir()) == ["ws"]


@pytest.mark.slow
def test_reverie_serve_takes_the_homes_principal_tokens(
    served: tuple[str, str], loopback: LoopbackServer, tmp_path: Path
) -> None:
    url, token = served
    alice = SqliteTokenBook(tmp_path / ".home" / "tokens.sqlite3").issue(
        "principal", principal="alice"
    )
    loopback.script(chat_text("Hello Alice."))
    with _connect(url, alice) as client:
        reply = client.chat.completions.create(
            model="chat-model", messages=[{"role": "user", "content": "hello"}]
        )
        assert reply.choices[0].message.content == "Hello Alice."
        with pytest.raises(openai.PermissionDeniedError):
            client.chat.completions.create(
                model="chat-model", messages=[{"role": "user", "content": "hi"}], user="ws"
            )
    assert (tmp_path / "alice" / "memory").is_dir()  # her own workspace, beside "ws"
    with _connect(url, token) as admin:
        assert [model.id for model in admin.models.list().data] == ["chat-model"]
    with pytest.raises(openai.AuthenticationError):
        _connect(url, "not-the-token")


def test_a_public_bind_without_a_token_is_refused(tmp_path: Path) -> None:
    env = clean_env(tmp_path, tmp_path / "ws")
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0"], env=env)
    assert result.exit_code == 1
    assert "refusing to listen on 0.0.0.0 without REVERIE_SERVE_TOKEN" in result.stderr
    assert not (tmp_path / "ws").exists()


def _serve(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    workspace = tmp_path / "ws"
    return subprocess.Popen(
        [sys.executable, "-m", "reverie", "serve", "-w", str(workspace), *args],
        env={**clean_env(tmp_path, workspace), **(env or {})},
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_a_public_bind_with_a_short_token_is_refused(tmp_path: Path) -> None:
    proc = _serve(tmp_path, "--host", "0.0.0.0", env={"REVERIE_SERVE_TOKEN": "x" * 31})
    _out, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "with a REVERIE_SERVE_TOKEN of 31 characters" in stderr
    assert "at least 32" in stderr


def test_a_busy_port_is_one_line_before_any_banner(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        proc = _serve(tmp_path, "--port", str(port))
        _out, stderr = proc.communicate(timeout=60)
    assert proc.returncode != 0
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert f"port {port} on 127.0.0.1 is in use" in lines[0]
    assert "reverie serve on" not in stderr


def test_the_console_never_shows_the_endpoints_credentials(
    tmp_path: Path, loopback: LoopbackServer
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    secret_url = loopback.base_url.replace("http://", "http://ada:S3cretPass@") + "?key=qz81x"
    (workspace / "reverie.toml").write_text(
        f'[model]\nbase_url = "{secret_url}"\nmodel = "chat-model"\n', encoding="utf-8"
    )
    proc = _serve(tmp_path, "--port", str(free_port()))
    assert proc.stderr is not None
    printed: list[str] = []
    try:
        while not any(line.startswith("token:") for line in printed):
            line = proc.stderr.readline()
            assert line, f"reverie serve exited: {proc.wait()}"
            printed.append(line)
    finally:
        proc.terminate()
        proc.communicate(timeout=20)
    shown = "".join(printed)
    assert "forwarding to http://[redacted: credentials]@127.0.0.1" in shown
    for secret in ("S3cretPass", "qz81x", "ada:"):
        assert secret not in shown


def test_port_0_announces_the_port_the_system_gave_and_it_answers(tmp_path: Path) -> None:
    proc = _serve(tmp_path, "--port", "0")
    assert proc.stderr is not None
    try:
        banner = proc.stderr.readline()
        assert banner.startswith("reverie serve on http://127.0.0.1:"), banner
        port = int(banner.split("http://127.0.0.1:", 1)[1].split(":", 1)[0])
        assert port > 0
        token = _ready(proc)
        url = f"http://127.0.0.1:{port}/v1/models"  # reverie's gate answers on that port
        assert httpx2.get(url, timeout=30).status_code == 401
        answer = httpx2.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert answer.status_code != 401, answer.text
    finally:
        proc.terminate()
        proc.communicate(timeout=20)


def _ready(proc: subprocess.Popen[str]) -> str:
    """Read ``reverie serve``'s banner up to its token line; return the token."""
    assert proc.stderr is not None
    while True:
        line = proc.stderr.readline()
        assert line, f"reverie serve exited: {proc.wait()}"
        if line.startswith("token:"):
            return line.removeprefix("token:").strip()


@pytest.mark.slow
def test_a_huge_request_is_refused_at_once_and_sigterm_is_not_blocked(
    tmp_path: Path, loopback: LoopbackServer
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "reverie.toml").write_text(
        f'[model]\nbase_url = "{loopback.base_url}"\nmodel = "chat-model"\n', encoding="utf-8"
    )
    port = free_port()
    proc = _serve(tmp_path, "--port", str(port))
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    try:
        headers = {"Authorization": f"Bearer {_ready(proc)}"}
        tiny = [{"role": "user", "content": "x"} for _ in range(200_000)]
        huge = httpx2.post(url, json={"messages": tiny}, headers=headers, timeout=120)
        assert huge.status_code == 400
        assert "at most 10,000" in huge.json()["error"]["message"]
        assert loopback.requests == []
        most = [{"role": "user", "content": f"m{i}"} for i in range(10_000)]
        sent = threading.Thread(
            target=lambda: httpx2.post(url, json={"messages": most}, headers=headers, timeout=120)
        )
        sent.start()
        time.sleep(1.0)  # the server is now recording the 10,000 messages
        proc.send_signal(signal.SIGTERM)
        _out, stderr = proc.communicate(timeout=90)
        sent.join(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "Traceback" not in stderr
