"""Session keys map to distinct, reversible file names that stay inside ``sessions/``.

They name the per-session compaction locks (``lock_name``).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reverie.core.session import lock_name
from reverie.storage.folder.session_keys import is_stem, key_to_stem, stem_to_key
from reverie.storage.folder.workspace import Workspace

HOSTILE_KEYS = [
    "telegram:12345",
    "cli:default",
    "a/b",
    "../../etc/passwd",
    "..",
    ".",
    "/absolute",
    "C:\\windows\\path",
    "key",
    "Key",
    "KEY",
    "a:b",
    "a%3ab",
    "a_3ab",
    "^k",
    "~tilde",
    "with\nnewline",
    "nul\x00byte",
    "\u4e2d\u6587\u4f1a\u8bdd",
    "emoji \U0001f600",
    unicodedata.normalize("NFC", "caf\u00e9"),
    unicodedata.normalize("NFD", "caf\u00e9"),
    "x" * 1000,
    "x" * 999 + "y",
    "\u4e2d" * 1000,
    " ",
]


def test_hostile_keys_map_to_distinct_files_inside_sessions(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    Workspace.open(root, create=True).close()
    sessions = (root / "sessions").resolve()
    paths = [root / "sessions" / (key_to_stem(key) + ".lock") for key in HOSTILE_KEYS]
    assert all(path.resolve().parent == sessions for path in paths)
    assert all(len(path.name.encode()) <= 255 for path in paths)
    # Distinct even on a case-insensitive file system.
    assert len({path.name.lower() for path in paths}) == len(HOSTILE_KEYS)


@pytest.mark.parametrize("key", [k for k in HOSTILE_KEYS if "~" not in key_to_stem(k)])
def test_short_keys_decode_from_the_file_name_alone(key: str) -> None:
    stem = key_to_stem(key)
    assert stem_to_key(stem) == key
    assert is_stem(stem)
    assert "." not in stem
    assert "/" not in stem
    assert stem == stem.lower() or "^" in stem


def test_long_keys_get_a_hashed_name_that_never_collides_with_a_plain_one() -> None:
    stem = key_to_stem("x" * 1000)
    assert "~" in stem
    assert is_stem(stem)
    assert stem_to_key(stem) is None
    assert key_to_stem("x" * 999 + "y") != stem


@pytest.mark.parametrize("bad", ["", "lone \ud800 surrogate"])
def test_keys_that_cannot_name_a_session_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="session key"):
        key_to_stem(bad)
    with pytest.raises(ValueError, match="session key"):
        lock_name(bad)


def test_foreign_names_are_not_stems() -> None:
    assert stem_to_key("%61") is None  # decodes to "a", but "a" is spelled "a"
    assert stem_to_key("Upper") is None
    assert stem_to_key("%ff") is None  # not UTF-8
    assert not is_stem("has.dot")
    assert not is_stem("")


@given(st.text(min_size=1, max_size=80).filter(lambda k: k.encode("utf-8", "ignore") != b""))
def test_any_key_round_trips(key: str) -> None:
    try:
        stem = key_to_stem(key)
    except ValueError:
        return  # lone surrogates
    assert is_stem(stem)
    decoded = stem_to_key(stem)
    assert decoded == key or (decoded is None and "~" in stem)


@given(st.text(min_size=1, max_size=40), st.text(min_size=1, max_size=40))
def test_distinct_keys_get_distinct_names(first: str, second: str) -> None:
    try:
        stems = key_to_stem(first), key_to_stem(second)
    except ValueError:
        return
    assert (stems[0].lower() == stems[1].lower()) == (first == second)
