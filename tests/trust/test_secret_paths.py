"""Secrets said in a session are kept nowhere: not the session, search, recall, prompt or history.

Generated messages (tests/redaction_corpus.py: every claimed kind, phrasing and language)
go through ``record``, compaction and model-free dream; then no byte of any secret is in the
sessions database, the search index, a search hit, a recalled item, the next prompt, the
history or a durable file, and a client resending the conversation records nothing twice.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from reverie.core.messages import Message
from reverie.serve.reconcile import reconcile
from tests.redaction_corpus import SecretMessage, secret_messages
from tests.trust.test_properties import open_model_free


def _bytes_under(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())


@settings(
    max_examples=4,
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),  # a failure is shown unshrunk
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(secret_messages(), min_size=25, max_size=25))
def test_a_secret_said_in_a_session_is_kept_shown_or_sent_nowhere(
    said: list[SecretMessage],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "ws"
        engine = open_model_free(root)
        try:
            sent = [Message(role="user", content=message.text) for message in said]
            engine.record("cli:default", sent)
            held = engine.session("cli:default").messages
            assert reconcile(held, sent).new == (), "a resend would record the messages twice"
            shown: list[str] = [m.text for m in held]
            for message in said:
                shown += [hit.snippet for hit in engine.search(message.secret.split(" ")[0])]
                shown += [item.text for item in engine.recall(message.text).items]
            shown += [
                m.text for m in engine.prompt("cli:default", "what did I say?").prompt.messages
            ]
            engine.compact("cli:default")
            engine.dream()
            stored = _bytes_under(root)
            for message in said:
                for piece in message.pieces():
                    assert all(piece not in text for text in shown), (message, piece)
                    if not (piece.isdigit() and len(piece) < 6):  # "202" is in "2026"
                        assert piece.encode() not in stored, (message, piece)
        finally:
            engine.close()
