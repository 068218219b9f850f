"""The durable files are addressed one way: ``core.durable.durable_name`` reads what people type."""

from __future__ import annotations

import pytest

from reverie.core.durable import FILE_NAMES, RELATIVE_PATHS, durable_name


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("USER", "USER"),
        ("user", "USER"),
        ("USER.md", "USER"),
        ("user.MD", "USER"),
        ("  SOUL.md ", "SOUL"),
        ("./SOUL.md", "SOUL"),
        ("memory/MEMORY.md", "MEMORY"),
        ("./memory/MEMORY.md", "MEMORY"),
        ("Memory", "MEMORY"),
    ],
)
def test_every_spelling_people_use_names_its_file(text: str, name: str) -> None:
    assert durable_name(text) == name


@pytest.mark.parametrize(
    "text",
    [
        "",
        "USER.txt",
        "NOTES.md",
        "skills/x/SKILL.md",
        "../USER.md",
        "other/USER.md",
        "/USER.md",
        "memory/",
        "USER.md/",
        "sessions/USER.md",
        ".reverie/USER.md",
    ],
)
def test_anything_else_names_no_file(text: str) -> None:
    assert durable_name(text) is None


def test_the_client_names_and_the_paths_name_the_same_three_files() -> None:
    assert sorted(FILE_NAMES.values()) == sorted(RELATIVE_PATHS)
    for shown, name in FILE_NAMES.items():
        assert RELATIVE_PATHS[name].endswith(shown)
        assert durable_name(RELATIVE_PATHS[name]) == name
