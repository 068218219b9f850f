"""Audit integrity (a missing or replaced .git is reported, repaired only on request) and
error messages that never show credentials."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest
from dulwich.repo import Repo
from typer.testing import CliRunner

from reverie.cli import app
from reverie.core.messages import Message
from reverie.errors import AuditError, ModelConnectionError, ModelError
from reverie.llm.openai_provider import OpenAIProvider
from reverie.llm.provider import ChatRequest
from reverie.llm.retry import RetryPolicy
from reverie.memory.doctor import examine
from reverie.storage.folder.workspace import Workspace


def _fresh(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    Workspace.open(root, create=True).close()
    return root


def test_a_removed_git_is_reported_and_never_silently_recreated(tmp_path: Path) -> None:
    root = _fresh(tmp_path)
    shutil.rmtree(root / ".git")
    workspace = Workspace.open(root)
    try:
        assert not (root / ".git").exists()
        report = examine(workspace)
        assert not report.ok
        problem = next(f for f in report.findings if f.check == "audit")
        assert "--repair-audit" in problem.message
        with pytest.raises(AuditError, match="--repair-audit"):
            workspace.audit.commit("anything")
        assert workspace.audit.repair().ok
        assert examine(workspace).ok
        assert workspace.audit.log(5)[0].subject == "init: workspace"
    finally:
        workspace.close()


def test_a_replaced_git_is_reported_until_accepted(tmp_path: Path) -> None:
    root = _fresh(tmp_path)
    shutil.rmtree(root / ".git")
    (root / "USER.md").write_text("# User\n\n- someone else\n", encoding="utf-8")
    other = Repo.init(str(root), default_branch=b"main")
    other.get_worktree().stage(["USER.md"])
    other.get_worktree().commit(message=b"foreign", committer=b"x <x@x>", author=b"x <x@x>")
    other.close()
    workspace = Workspace.open(root)
    try:
        problem = next(f for f in examine(workspace).findings if f.check == "audit")
        assert "replaced" in problem.message
        assert workspace.audit.repair().ok
        assert examine(workspace).ok
    finally:
        workspace.close()


def test_doctor_repair_audit_from_the_command_line(tmp_path: Path) -> None:
    root = _fresh(tmp_path)
    shutil.rmtree(root / ".git")
    runner = CliRunner()
    env = {"REVERIE_WORKSPACE": str(root), "HOME": str(tmp_path), "COLUMNS": "200"}
    failed = runner.invoke(app, ["doctor"], env=env)
    assert failed.exit_code == 1
    assert "--repair-audit" in failed.output
    assert not (root / ".git").exists()
    repaired = runner.invoke(app, ["doctor", "--repair-audit"], env=env)
    assert repaired.exit_code == 0, repaired.output
    assert (root / ".git").is_dir()


def test_a_fresh_workspace_records_its_audit_root(tmp_path: Path) -> None:
    root = _fresh(tmp_path)
    assert (root / ".reverie" / "audit-root").read_text(encoding="ascii").strip()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_connection_error_never_shows_url_credentials() -> None:
    port = _closed_port()
    provider = OpenAIProvider(
        model="m",
        base_url=f"http://admin:S3cretPw@127.0.0.1:{port}/v1?api_key=Zz9secretkey",
        timeout=2,
        retry=RetryPolicy(max_attempts=1),
    )
    request = ChatRequest(messages=(Message(role="user", content="hi"),))
    with provider, pytest.raises(ModelError) as caught:
        provider.complete(request)
    shown = str(caught.value) + repr(provider)
    assert "S3cretPw" not in shown
    assert "Zz9secretkey" not in shown
    assert f"127.0.0.1:{port}" in str(caught.value)


def test_every_reverie_error_message_is_redacted() -> None:
    error = ModelConnectionError("cannot reach https://bob:hunter22@h.example/v1?token=abc123x")
    assert "hunter22" not in str(error)
    assert "abc123x" not in str(error)
    assert "h.example/v1" in str(error)
