"""``reverie ingest``: a real import through the CLI, its summary, JSON, and re-import."""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import re
import sys
from pathlib import Path

import pexpect
from rich.progress import Progress

from reverie.cli.ingest_command import _progress, summary_line, undreamt_line
from reverie.memory.ingest.importers import ImportProblem, load
from reverie.memory.ingest.run import IngestReport
from tests.cli.conftest import Cli

FIXTURE = Path(__file__).parents[1] / "fixtures" / "nanobot_session.jsonl"


def test_ingest_imports_once_and_says_what_it_did(cli: Cli) -> None:
    cli.run("init")
    first = cli.json("ingest", str(FIXTURE))
    assert first["sessions"] == 1
    assert first["messages_added"] > 0
    assert first["mode"] == "model-free"
    assert "import:nanobot:fixtures:telegram:80417" in {i["key"] for i in cli.json("sessions")}
    again = cli.run("ingest", str(FIXTURE)).stdout
    assert "imported 1 session(s): 0 message(s) added" in again
    assert "(model-free)" in again


def test_a_bad_record_is_listed_and_the_rest_imported(cli: Cli, tmp_path: Path) -> None:
    chats = tmp_path / "chats.jsonl"
    good = '{"messages": [{"role": "user", "content": "I am Ivo from Sofia."}]}'
    chats.write_text(good + "\n{not json\n", encoding="utf-8")
    proc = cli.run("ingest", str(chats))
    assert "imported 1 session(s)" in proc.stdout
    assert "skipped " in proc.stderr
    assert "line 2" in proc.stderr


def test_ingest_of_an_unknown_format_is_one_line(cli: Cli, tmp_path: Path) -> None:
    strange = tmp_path / "notes.txt"
    strange.write_text("just some text\n", encoding="utf-8")
    proc = cli.run("ingest", str(strange), expect=1)
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_progress_bars_follow_each_stage_and_the_summary_counts_problems() -> None:
    bars = Progress()
    on_progress = _progress(bars)
    on_progress("import", 1, 4)
    on_progress("import", 4, 4)
    on_progress("dream", 0, 0)
    tasks = {task.description: task for task in bars.tasks}
    assert tasks["import"].completed == 4
    assert tasks["dream"].total is None
    report = IngestReport(
        sessions=2,
        messages_added=10,
        messages_skipped=3,
        entries=4,
        commits=1,
        dream_runs=1,
        mode="model",
        seconds=1.25,
        problems=(ImportProblem(path=Path("x.jsonl"), position=3, reason="not JSON"),),
    )
    line = summary_line(report).plain
    assert "2 session(s): 10 message(s) added, 3 already there" in line
    assert "(model); 1 problem(s)" in line
    stopped = dataclasses.replace(report, undreamt=3, dream_stopped="failed")
    assert undreamt_line(stopped).startswith("3 history entr(ies) still wait for dream")
    assert "the last dream run ended failed" in undreamt_line(stopped)
    capped = dataclasses.replace(report, undreamt=2, dream_stopped=None)
    assert "limit of dream runs" in undreamt_line(capped)


def _copied_nanobot_workspace(tmp_path: Path) -> tuple[Path, Path]:
    """A 0.3.5 workspace copied away from the HOME that holds its sessions, and that folder."""
    ident = "0123456789abcdef0123456789abcdef"
    workspace = tmp_path / "copied-workspace"
    (workspace / ".nanobot").mkdir(parents=True)
    (workspace / ".nanobot" / "workspace-id").write_text(ident + "\n")
    (workspace / "USER.md").write_text("# User\n\n- Name: Mia\n")
    sessions = tmp_path / "other-home" / ".nanobot" / "sessions" / ident
    sessions.mkdir(parents=True)
    (sessions / ".workspace").write_text("/home/mia/.nanobot/workspace\n")
    meta = {"_type": "metadata", "key": "telegram:1", "created_at": "2026-10-01T08:00:00"}
    lines = [
        {**meta, "last_archived": 2},
        {"role": "user", "content": "[internal] earlier turns", "_hidden_history": True},
        {"role": "user", "content": "I grow tomatoes in Bergen.", "timestamp": "2026-10-01T09:00"},
        {"role": "assistant", "content": "Noted.", "timestamp": "2026-10-01T09:00:02"},
        {"role": "user", "content": "And basil.", "timestamp": "2026-10-01T09:01"},
    ]
    stem = base64.urlsafe_b64encode(b"telegram:1").decode().rstrip("=")
    (sessions / f"{stem}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return workspace, sessions


def test_a_copied_nanobot_workspace_says_where_its_sessions_were_looked_for(
    cli: Cli, tmp_path: Path
) -> None:
    workspace, sessions = _copied_nanobot_workspace(tmp_path)
    cli.run("init")
    alone = cli.run("ingest", str(workspace))
    assert "imported 0 session(s)" in alone.stdout
    said = " ".join(alone.stderr.split())
    looked = Path(cli.env["HOME"]) / ".nanobot" / "sessions" / sessions.name
    assert f"keeps them in {looked}" in said, said
    assert (
        f"reverie ingest {workspace.resolve()} /path/to/.nanobot/sessions/{sessions.name}" in said
    )
    both = cli.run("ingest", str(workspace), str(sessions))
    assert "imported 1 session(s): 3 message(s) added" in both.stdout
    assert "keeps them in" not in both.stderr
    key = "import:nanobot:workspace:telegram:1"
    shown = cli.json("session", key)
    assert [m["content"] for m in shown["messages"]] == [
        "I grow tomatoes in Bergen.",
        "Noted.",
        "And basil.",
    ]
    read = load(sessions).conversations[0]
    assert read.compacted == 1  # nanobot's mark (2) counted its hidden turn


def _long_conversation(path: Path, turns: int) -> Path:
    messages: list[dict[str, str]] = []
    for day in range(turns):
        messages.append({"role": "user", "content": f"Day {day}: we planted kind {day % 13}."})
        messages.append({"role": "assistant", "content": "Noted."})
    path.write_text(json.dumps({"messages": messages}) + "\n", encoding="utf-8")
    return path


def test_a_long_ingest_shows_its_replay_moving_on_a_terminal(
    cli_process: Cli, tmp_path: Path
) -> None:
    """One long conversation: the bar counts its messages while they replay, not only at the end."""
    chats = _long_conversation(tmp_path / "one-long-chat.jsonl", turns=300)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "reverie", "ingest", str(chats)],
        env={**cli_process.env, "NO_COLOR": "1", "TERM": "xterm"},
        encoding="utf-8",
        timeout=300,
        dimensions=(30, 160),
    )
    child.logfile_read = seen = io.StringIO()
    try:
        child.expect("imported 1 session")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    counts = [int(done) for done in re.findall(r"replay\s+\S*\s*(\d+)/600", seen.getvalue())]
    assert counts, seen.getvalue()[-2000:]
    assert any(0 < done < 600 for done in counts), counts  # it moved during the replay


def test_ingest_off_a_terminal_prints_no_bar(cli_process: Cli, tmp_path: Path) -> None:
    chats = _long_conversation(tmp_path / "chat.jsonl", turns=20)
    proc = cli_process.run("ingest", str(chats))
    assert "imported 1 session(s)" in proc.stdout
    assert "\x1b[" not in proc.stderr + proc.stdout
    assert "replay" not in proc.stderr
