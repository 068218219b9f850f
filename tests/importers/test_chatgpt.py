"""ChatGPT exports: the current branch only, hidden nodes left out, tools, damaged records."""

from __future__ import annotations

import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path

from reverie.core.messages import JSONValue
from reverie.memory.ingest.importers import load

T0 = 1_790_000_000


def node(
    nid: str,
    parent: str | None,
    role: str | None = None,
    text: str = "",
    at: float | None = None,
    **fields: JSONValue,
) -> tuple[str, JSONValue]:
    message: JSONValue = None
    if role is not None:
        message = {
            "id": nid,
            "author": {"role": role, "name": fields.pop("name", None)},
            "create_time": at,
            "content": fields.pop("content", {"content_type": "text", "parts": [text]}),
            "metadata": fields.pop("metadata", {}),
            "recipient": fields.pop("recipient", "all"),
            "weight": fields.pop("weight", 1.0),
        }
    return nid, {"id": nid, "parent": parent, "children": [], "message": message}


def conversation(
    *nodes: tuple[str, JSONValue], current: str | None, ident: str = "c1"
) -> JSONValue:
    mapping = dict(nodes)
    for nid, item in mapping.items():
        assert isinstance(item, dict)
        parent = item["parent"]
        if isinstance(parent, str):
            children = mapping[parent]
            assert isinstance(children, dict)
            assert isinstance(children["children"], list)
            children["children"].append(nid)
    return {
        "title": f"title {ident}",
        "conversation_id": ident,
        "mapping": mapping,
        "current_node": current,
    }


def branched() -> JSONValue:
    return conversation(
        node("root", None),
        node(
            "sys",
            "root",
            "system",
            "You are ChatGPT",
            T0,
            metadata={"is_visually_hidden_from_conversation": True},
        ),
        node("u-old", "sys", "user", "I cycle 8 km to work.", T0 + 10),
        node("a-old", "u-old", "assistant", "Old answer.", T0 + 11),
        node("u-new", "sys", "user", "I cycle 12 km to work.", T0 + 20),
        node("a-new", "u-new", "assistant", "New answer.", T0 + 21),
        node(
            "thought",
            "a-new",
            "assistant",
            "",
            T0 + 22,
            content={"content_type": "thoughts", "thoughts": []},
        ),
        node(
            "u2",
            "thought",
            "user",
            "",
            T0 + 30,
            content={
                "content_type": "multimodal_text",
                "parts": [{"content_type": "image_asset_pointer"}, "What is this?"],
            },
        ),
        node("a2", "u2", "assistant", "A bicycle.", T0 + 31),
        current="a2",
    )


def write(path: Path, data: JSONValue) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_only_the_current_branch_comes_through(tmp_path: Path) -> None:
    batch = load(write(tmp_path / "conversations.json", [branched()]))
    assert batch.format == "chatgpt-export"
    (conv,) = batch.conversations
    assert conv.key == "import:chatgpt:c1"
    assert conv.title == "title c1"
    assert [(m.role, m.text) for m in conv.messages] == [
        ("user", "I cycle 12 km to work."),
        ("assistant", "New answer."),
        ("user", "[image]\nWhat is this?"),
        ("assistant", "A bicycle."),
    ]
    assert conv.messages[0].timestamp == datetime.fromtimestamp(T0 + 20, UTC)


def test_without_a_current_node_the_newest_leaf_is_followed(tmp_path: Path) -> None:
    data = branched()
    assert isinstance(data, dict)
    data["current_node"] = None
    (conv,) = load(write(tmp_path / "conversations.json", [data])).conversations
    assert conv.messages[-1].text == "A bicycle."


def test_tool_runs_become_calls_with_results(tmp_path: Path) -> None:
    data = conversation(
        node("u", None, "user", "Plot my rides.", T0),
        node(
            "code",
            "u",
            "assistant",
            "plot(rides)",
            T0 + 1,
            recipient="python",
            content={"content_type": "code", "text": "plot(rides)"},
        ),
        node(
            "out",
            "code",
            "tool",
            "",
            T0 + 2,
            name="python",
            content={"content_type": "execution_output", "text": "<figure>"},
        ),
        node("search", "out", "assistant", "weather", T0 + 3, recipient="browser"),
        node("a", "search", "assistant", "Here is the plot.", T0 + 4),
        current="a",
    )
    (conv,) = load(write(tmp_path / "c.json", data)).conversations
    roles = [(m.role, m.tool_call_id, m.text) for m in conv.messages]
    assert roles[:3] == [
        ("user", None, "Plot my rides."),
        ("assistant", None, ""),
        ("tool", "call-code", "<figure>"),
    ]
    assert conv.messages[1].tool_calls[0].name == "python"
    assert json.loads(conv.messages[1].tool_calls[0].arguments) == {"input": "plot(rides)"}
    assert roles[4][0] == "tool"
    assert roles[4][1] == "call-search"
    assert roles[5] == ("assistant", None, "Here is the plot.")


def test_a_damaged_conversation_is_reported_and_the_rest_imported(tmp_path: Path) -> None:
    looped = conversation(
        node("x", "y", "user", "a"), node("y", "x", "user", "b"), current="x", ident="loop"
    )
    path = write(
        tmp_path / "conversations.json",
        [{"title": "no mapping"}, branched(), looped, conversation(current=None, ident="empty")],
    )
    batch = load(path)
    assert [c.key for c in batch.conversations] == ["import:chatgpt:c1"]
    assert [(p.position, p.unit) for p in batch.problems] == [
        (1, "record"),
        (3, "record"),
        (4, "record"),
    ]
    assert "mapping" in batch.problems[0].reason
    assert "loop" in batch.problems[1].reason


def test_an_export_folder_and_zip_are_recognised(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    write(folder / "conversations.json", [branched()])
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(folder / "conversations.json", "chatgpt-2026/conversations.json")
    assert load(folder).conversations == load(folder / "conversations.json").conversations
    from_zip = load(archive)
    assert from_zip.format == "chatgpt-export"
    assert [c.key for c in from_zip.conversations] == ["import:chatgpt:c1"]
    assert from_zip.source == archive


def test_progress_counts_conversations(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    load(
        write(tmp_path / "c.json", [branched(), branched()]),
        on_progress=lambda d, t: seen.append((d, t)),
    )
    assert seen == [(1, 2), (2, 2)]
