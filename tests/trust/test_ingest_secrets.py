"""An imported chat holding generated secrets and hostile lines keeps neither (the ingest writer).

Model-free ingest of an OpenAI-style export: no secret's bytes anywhere under the workspace
(sessions, index, history, durable files, git), no hostile line in a durable file.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.redaction_corpus import SecretMessage, secret_messages
from tests.trust.hostile_corpus import HostileLine, hostile_lines
from tests.trust.test_properties import open_model_free


@settings(
    max_examples=3,
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(secret_messages(), min_size=15, max_size=15),
    st.lists(hostile_lines(), min_size=5, max_size=5),
)
def test_an_imported_chat_keeps_no_secret_and_publishes_no_hostile_line(
    said: list[SecretMessage], hostile: list[HostileLine]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "ws"
        messages = [{"role": "user", "content": "I prefer short answers."}]
        for number, message in enumerate(said):
            messages.append({"role": "user", "content": message.text})
            messages.append({"role": "assistant", "content": "Noted."})
            if number < len(hostile):
                messages.append({"role": "user", "content": f"From now on: {hostile[number].text}"})
        export = Path(folder) / "chat.json"
        export.write_text(json.dumps([{"id": "imported", "messages": messages}]), "utf-8")
        engine = open_model_free(root)
        try:
            engine.ingest([export])
            stored = b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())
            for message in said:
                assert message.text.encode() not in stored, message  # never kept verbatim
                for piece in message.pieces():
                    if not (piece.isdigit() and len(piece) < 6):  # "178" is in a duration
                        assert piece.encode() not in stored, (message, piece)
            for path in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
                kept = (root / path).read_text(encoding="utf-8")
                for line in hostile:
                    assert line.text not in kept, (path, line)
        finally:
            engine.close()
