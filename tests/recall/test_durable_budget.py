"""The durable files within their share of the prompt (DESIGN.md invariant 12).

Real workspaces: large SOUL.md, USER.md and MEMORY.md, a long summary and recent history, at
input budgets from 512 to 125,952 tokens; the prompt never exceeds its budget, always
carries the SOUL rules that fit (first), identity and the lines relevant to the message, says
how many lines it left out, and leaves the files unchanged.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import Message
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.llm.tokens import default_counter
from reverie.memory.recall.durable import DurableFile, fit_durable, summary_within
from reverie.testing.folders import workspace_of

WINDOWS = {  # name: (context window, output tokens); input budget = window - output - 1,024
    "budget-512": (2048, 512),
    "budget-1k": (2560, 512),
    "budget-2k-window-4k": (4096, 1024),
    "budget-4k": (6144, 1024),
    "budget-6k-window-8k": (8192, 1024),
    "window-128k": (131072, 4096),
}
WORDS = [
    *("garden", "lantern", "violin", "harbour", "ledger", "copper", "meadow", "orbit"),
    *("parcel", "quarry", "ribbon", "saddle", "tundra", "velvet", "walnut", "yonder"),
    *("zephyr", "basil", "cobalt", "dune", "ember", "fjord", "glacier", "hazel", "ivory"),
]
SOUL_RULES = [f"- Rule {n}: always answer in {WORDS[n]} style." for n in range(6)]
KEY = "cli:talk"


def _filler(rng: random.Random, lines: int, tag: str) -> list[str]:
    return [
        f"- {tag} note {n}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18)))
        for n in range(lines)
    ]


def _engine(root: Path, window: tuple[int, int]) -> MemoryEngine:
    size, output = window
    model = ModelConfig(context_window=size, max_output_tokens=output)
    return MemoryEngine.open(root, Config(model=model), environ={}, dense="off")


def _fill(engine: MemoryEngine, rng: random.Random, lines: int) -> None:
    workspace = workspace_of(engine)
    files = workspace.files
    files.write("SOUL", "# Soul\n\n" + "\n".join(SOUL_RULES) + "\n")
    user = ["- Name: Ada Lovelace, goes by Ada.", "- Lives in Porto.", "- Speaks Portuguese."]
    files.write("USER", "# User\n\n" + "\n".join([*user, *_filler(rng, lines, "user")]) + "\n")
    facts = [*_filler(rng, lines, "memory"), "- The storage locker code at Kestrel Yard is 4817."]
    files.write("MEMORY", "# Memory\n\n## Places\n\n" + "\n".join(facts) + "\n")
    for number in range(lines // 4):
        workspace.history.append(
            " ".join(rng.choice(WORDS) for _ in range(40)) + f" entry {number}", session_key=KEY
        )
    workspace.sessions.set_summary(
        KEY, "\n".join(_filler(rng, lines, "summary")), datetime(2026, 11, 30, tzinfo=UTC)
    )
    for number in range(4):
        engine.record(KEY, [Message(role="user", content=f"hello {number} " + rng.choice(WORDS))])


def _text(messages: tuple[Message, ...]) -> str:
    return "\n".join(m.text for m in messages)


@pytest.fixture
def roots(tmp_path: Path) -> Iterator[Path]:
    return (tmp_path / f"ws{n}" for n in range(10_000))


@pytest.mark.parametrize("window", list(WINDOWS), ids=list(WINDOWS))
@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 10_000), lines=st.sampled_from([5, 60, 400]))
def test_the_prompt_fits_its_budget_and_carries_soul_first(
    roots: Iterator[Path], window: str, seed: int, lines: int
) -> None:
    engine = _engine(next(roots), WINDOWS[window])
    try:
        _fill(engine, random.Random(seed), lines)
        before = engine.durable_files()
        result = engine.prompt(KEY, "What is the code of the storage locker?")
        text = _text(result.messages)

        assert result.tokens <= result.budget
        shown = [rule for rule in SOUL_RULES if rule in text]
        assert shown == SOUL_RULES[: len(shown)]  # SOUL's rules first, in order
        assert shown == SOUL_RULES  # six short rules fit even a 512-token budget
        assert engine.durable_files() == before  # only the prompt leaves lines out
        if window == "window-128k":
            assert all(body.strip() in text for body in before.values())
    finally:
        engine.close()


def test_a_small_window_carries_identity_and_the_relevant_line_and_says_more_is_kept(
    tmp_path: Path,
) -> None:
    engine = _engine(tmp_path / "ws", WINDOWS["budget-2k-window-4k"])
    try:
        _fill(engine, random.Random(3), 400)
        text = _text(engine.prompt(KEY, "What is the code of the storage locker?").messages)
    finally:
        engine.close()

    assert "Name: Ada Lovelace" in text
    assert "Lives in Porto." in text
    assert "Speaks Portuguese" in text
    assert "storage locker code at Kestrel Yard is 4817" in text
    assert "## Places" in text  # shown under its heading
    notes = re.findall(r"\(… (\d+) more lines of (\S+) remembered", text)
    assert {path for _count, path in notes} == {"USER.md", "memory/MEMORY.md"}
    assert all(int(count) > 300 for count, _path in notes)


def test_files_that_fit_are_sent_whole_and_unchanged() -> None:
    counter = default_counter()
    files = [DurableFile(name="USER", path="USER.md", text="# User\n\n- Lives in Porto.\n")]

    (section,) = fit_durable(files, "anything", 1_000, counter.text)

    assert section.text == "## USER.md\n\n# User\n\n- Lives in Porto."
    assert (section.shown, section.left_out) == (1, 0)


def test_the_lines_chosen_are_the_relevant_ones_in_file_order() -> None:
    counter = default_counter()
    rng = random.Random(1)
    body = _filler(rng, 200, "fact")
    body[50] = "- Allergic to peanuts since childhood."
    body[150] = "- Peanut butter is banned from the house."
    files = [DurableFile(name="MEMORY", path="memory/MEMORY.md", text="\n".join(body))]

    (section,) = fit_durable(
        files, "Which allergies should I know about? peanuts", 120, counter.text
    )

    lines = section.text.splitlines()
    assert lines.index(body[50]) < lines.index(body[150])
    assert counter.text(section.text) <= 120
    assert section.left_out == 200 - section.shown
    assert "more lines of memory/MEMORY.md" in lines[-1]


def test_a_long_summary_keeps_its_first_lines_and_points_to_history() -> None:
    counter = default_counter()
    text = "\n".join(f"line {n} " + "word " * 20 for n in range(100))

    cut = summary_within(text, 200, counter.text)

    assert counter.text(cut) <= 200
    assert cut.startswith("line 0 ")
    assert cut.endswith("search memory to reach it.)")
    assert summary_within(text, None, counter.text) == text
