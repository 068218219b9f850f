"""``reverie doctor`` names a session written before redaction ran on append; ``--redact-sessions``
rewrites it (the behaviour itself, on both backends, is in tests/trust/test_session_secrets.py).
"""

from __future__ import annotations

from pathlib import Path

from reverie.memory.session_secrets import FIX
from tests.cli.conftest import Cli
from tests.trust.test_session_secrets import OLD


def test_the_cli_reports_then_fixes_an_old_session(cli: Cli) -> None:
    from reverie.storage.folder.backend import FileBackend

    cli.run("init")
    stores = FileBackend.open(Path(cli.workspace))
    stores.sessions.append_many("tg:old", OLD)
    stores.close()
    found = cli.run("doctor", expect=1)
    assert FIX in found.stdout.replace("\n", " ")
    fixed = cli.run("doctor", "--redact-sessions")
    assert "redacted 2 message(s)" in fixed.stderr
    assert "session-secrets" not in fixed.stdout
