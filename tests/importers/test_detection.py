"""Format detection: every format by content, and clear errors for everything else."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reverie import ReverieError
from reverie.errors import ImportSourceError, UnknownImportFormatError
from reverie.memory.ingest.importers import detect

FIXTURE = Path(__file__).parent.parent / "fixtures" / "nanobot_session.jsonl"


def put(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (json.dumps([{"role": "user", "content": "x"}]), "openai-json"),
        (json.dumps([{"messages": []}]), "openai-json"),
        (json.dumps({"messages": []}), "openai-json"),
        (json.dumps([[{"role": "user", "content": "x"}]]), "openai-json"),
        ("[]", "openai-json"),
        (json.dumps([{"mapping": {}, "current_node": None}]), "chatgpt-export"),
        (json.dumps({"mapping": {}}), "chatgpt-export"),
        (
            '{"role": "user", "content": "a"}\n{"role": "assistant", "content": "b"}\n',
            "openai-jsonl",
        ),
        ('not json\n{"messages": []}\n', "openai-jsonl"),
        ('[{"role": "user", "content": "a"}]\n[]\n', "openai-jsonl"),
    ],
)
def test_files_are_recognised_by_content(tmp_path: Path, text: str, expected: str) -> None:
    assert detect(put(tmp_path / "data.txt", text)) == expected


def test_nanobot_sources_are_recognised(tmp_path: Path) -> None:
    session = Path(shutil.copy(FIXTURE, tmp_path / "s.jsonl"))
    assert detect(session) == "nanobot-session"
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    put(root / "USER.md", "# User\n")
    assert detect(root) == "nanobot-workspace"


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("", "empty"),
        (b"\xff\xfe\x00binary", "UTF-8"),
        (json.dumps({"hello": "world"}), "neither messages"),
        (json.dumps(42), "neither messages"),
        ("just some text\nmore text\n", "neither JSON nor JSON Lines"),
        ('{"mapping": {}}\n{"mapping": {}}\n', "neither JSON nor JSON Lines"),
    ],
)
def test_an_unknown_file_raises_a_reverie_error_naming_the_path(
    tmp_path: Path, content: str | bytes, words: str
) -> None:
    path = put(tmp_path / "mystery.dat", content)
    with pytest.raises(UnknownImportFormatError) as caught:
        detect(path)
    assert isinstance(caught.value, ReverieError)
    assert isinstance(caught.value, ImportSourceError)
    assert caught.value.path == path
    assert str(path) in str(caught.value)
    assert words in str(caught.value)


def test_an_unknown_folder_and_a_missing_path_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(UnknownImportFormatError, match="neither a nanobot workspace"):
        detect(tmp_path)
    missing = tmp_path / "nope.json"
    with pytest.raises(ImportSourceError, match="no such file") as caught:
        detect(missing)
    assert caught.value.path == missing


def test_a_folder_whose_conversations_json_is_not_an_export_is_refused(tmp_path: Path) -> None:
    put(tmp_path / "conversations.json", json.dumps([{"role": "user", "content": "x"}]))
    with pytest.raises(UnknownImportFormatError, match="not a ChatGPT export"):
        detect(tmp_path)


def test_a_broken_zip_and_a_zip_without_an_export(tmp_path: Path) -> None:
    import zipfile

    broken = put(tmp_path / "broken.zip", b"PK\x03\x04 not really a zip")
    with pytest.raises(ImportSourceError, match="zip"):
        detect(broken)
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as zf:
        zf.writestr("readme.txt", "hi")
    with pytest.raises(UnknownImportFormatError, match=r"without conversations\.json"):
        detect(empty)
