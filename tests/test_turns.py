"""Turn boundaries, compaction cuts and the replay view (invariant 5), on pure values."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from reverie import Message, Session, ToolCall
from reverie.core.turns import last_safe_cut, pick_cut, replay, turn_boundaries, unsafe_cuts

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


class CountingCounter:
    """Every message costs 10 tokens; makes token arithmetic in the tests obvious."""

    def text(self, text: str) -> int:
        return len(text)

    def message(self, message: Message) -> int:
        return 10


TEN = CountingCounter()


def u(text: str = "u") -> Message:
    return Message(role="user", content=text)


def a(text: str | None = "a", *calls: str) -> Message:
    return Message(
        role="assistant", content=text, tool_calls=tuple(ToolCall(id=c, name="f") for c in calls)
    )


def t(call_id: str, text: str = "r") -> Message:
    return Message(role="tool", tool_call_id=call_id, content=text)


def session(*messages: Message, mark: int = 0) -> Session:
    return Session(
        key="k", created_at=NOW, updated_at=NOW, messages=tuple(messages), compacted_upto=mark
    )


def test_turns_start_at_user_messages_outside_tool_chains() -> None:
    messages = [u(), a(None, "c1"), t("c1"), a(None, "c2"), t("c2"), a(), u(), a()]
    assert turn_boundaries(messages) == (0, 6)
    assert [i for i, bad in enumerate(unsafe_cuts(messages)) if bad] == [2, 4]


def test_a_user_message_between_a_call_and_its_late_result_is_no_boundary() -> None:
    messages = [u(), a(None, "c1"), u("interjection"), t("c1"), a(), u(), a()]
    assert turn_boundaries(messages) == (0, 5)


def test_pick_cut_takes_the_earliest_boundary_that_removes_enough() -> None:
    s = session(u(), a(), u(), a(None, "c"), t("c"), a(), u(), a(), u(), a())
    assert pick_cut(s, 15, counter=TEN) == 2
    assert pick_cut(s, 25, counter=TEN) == 6
    assert pick_cut(s, 10_000, counter=TEN) == 8  # the furthest available
    assert pick_cut(session(*s.messages, mark=6), 5, counter=TEN) == 8


def test_pick_cut_finds_nothing_inside_one_turn() -> None:
    s = session(u(), a(None, "c1"), t("c1"), a(None, "c2"), t("c2"), a())
    assert pick_cut(s, 1, counter=TEN) is None


def test_a_turn_with_dozens_of_tool_calls_is_summarised_in_pieces() -> None:
    chain = [m for n in range(40) for m in (a(None, f"c{n}"), t(f"c{n}"))]
    s = session(u(), *chain, a("done"))
    assert pick_cut(s, 100, counter=TEN) is None
    mark, pieces = 0, 0
    while mark < len(s.messages):
        cut = last_safe_cut(session(*s.messages, mark=mark), 95, counter=TEN)
        assert cut is not None
        assert cut > mark
        assert (cut - mark) * 10 <= 95
        assert not unsafe_cuts(s.messages)[cut]
        mark, pieces = cut, pieces + 1
    assert pieces == 10  # cuts at 9, 17, ..., 73, then the end
    assert last_safe_cut(session(*s.messages, mark=len(s.messages)), 95, counter=TEN) is None


def test_one_assistant_calling_dozens_of_tools_at_once_stays_whole() -> None:
    calls = [f"c{n}" for n in range(30)]
    s = session(u(), a(None, *calls), *[t(c) for c in calls], a("done"), u(), a())
    assert [i for i, bad in enumerate(unsafe_cuts(s.messages)) if bad] == list(range(2, 32))
    # No piece fits 50 tokens, so the smallest whole group is returned: compaction advances.
    assert last_safe_cut(session(*s.messages, mark=1), 50, counter=TEN) == 32
    assert last_safe_cut(s, 10_000, counter=TEN) == len(s.messages)
    view = replay(session(*s.messages, mark=20), suffix=4)
    assert view == s.messages  # the suffix reached into the chain: extended to its user


def test_replay_starts_at_a_user_message_when_an_assistant_spoke_first() -> None:
    s = session(a("hello, I am your assistant"), u("hi"), a("how can I help?"))
    assert replay(s) == s.messages[1:]


def test_replay_of_a_session_without_any_user_message_keeps_it() -> None:
    s = session(a("reminder: stand-up at 10"), a("reminder: lunch"))
    assert replay(s) == s.messages


def test_replay_drops_orphan_tool_results() -> None:
    s = session(u(), t("ghost"), a(None, "c1"), t("c1"), t("ghost2"), a())
    assert replay(s) == (s.messages[0], s.messages[2], s.messages[3], s.messages[5])


def test_replay_keeps_a_suffix_before_the_mark_extended_to_its_turn() -> None:
    turns = [m for n in range(7) for m in (u(f"q{n}"), a(None, f"c{n}"), t(f"c{n}"))]
    s = session(*turns, mark=15)
    assert replay(s) == s.messages[6:]
    assert replay(s, suffix=0) == s.messages[15:]
    assert replay(session(*turns, mark=21)) == s.messages[12:]


def test_replay_with_a_budget_keeps_whole_turns_from_the_end() -> None:
    s = session(u(), a(), u(), a(None, "c"), t("c"), a(), u(), a())
    assert replay(s, max_tokens=60, counter=TEN) == s.messages[2:]
    assert replay(s, max_tokens=59, counter=TEN) == s.messages[6:]
    assert replay(s, max_tokens=1, counter=TEN) == s.messages[6:]  # always the last turn
    long_last = session(u(), a(), u(), *[a() for _ in range(20)])
    assert replay(long_last, max_tokens=50, counter=TEN) == long_last.messages[2:]


# Random conversations: every invariant holds whatever the shape.
ROLE_PLAN = st.lists(
    st.tuples(
        st.sampled_from(["user", "assistant", "call", "result", "orphan"]), st.integers(0, 3)
    ),
    max_size=40,
)


def _conversation(plan: list[tuple[str, int]]) -> list[Message]:
    messages: list[Message] = []
    open_calls: list[str] = []
    for n, (kind, width) in enumerate(plan):
        if kind == "user":
            messages.append(u(f"u{n}"))
        elif kind == "assistant":
            messages.append(a(f"a{n}"))
        elif kind == "call":
            calls = [f"c{n}.{k}" for k in range(width + 1)]
            open_calls += calls
            messages.append(a(None, *calls))
        elif kind == "result" and open_calls:
            messages.append(t(open_calls.pop(0)))
        else:
            messages.append(t(f"nobody{n}"))
    return messages


def _callers(messages: tuple[Message, ...]) -> dict[int, int]:
    """Map each tool result's index to its calling assistant's index."""
    latest: dict[str, int] = {}
    owners: dict[int, int] = {}
    for index, message in enumerate(messages):
        for call in message.tool_calls:
            latest[call.id] = index
        if message.role == "tool" and message.tool_call_id in latest:
            owners[index] = latest[message.tool_call_id]
    return owners


@given(ROLE_PLAN, st.integers(0, 40), st.one_of(st.none(), st.integers(0, 300)), st.integers(0, 10))
def test_replay_invariants_hold_for_any_conversation(
    plan: list[tuple[str, int]], mark: int, budget: int | None, suffix: int
) -> None:
    messages = tuple(_conversation(plan))
    s = session(*messages, mark=min(mark, len(messages)))
    view = replay(s, max_tokens=budget, counter=TEN, suffix=suffix)
    ids = [id(m) for m in view]
    positions = [next(i for i, m in enumerate(messages) if m is v) for v in view]
    assert positions == sorted(positions)
    assert len(set(ids)) == len(ids)
    owners = _callers(messages)
    kept = set(positions)
    for index in positions:
        if messages[index].role == "tool":
            assert owners.get(index) in kept  # never an orphan result
    for result, caller in owners.items():
        if caller in kept and result > min(kept):
            assert result in kept  # never a call without its results
    if turn_boundaries(messages) and view:
        assert view[0].role == "user"
    if turn_boundaries(messages):
        # The whole last turn is kept, whatever the budget (orphan results aside).
        last_turn = turn_boundaries(messages)[-1]
        for index in range(last_turn, len(messages)):
            if messages[index].role != "tool" or index in owners:
                assert index in kept


@given(ROLE_PLAN, st.integers(0, 40), st.integers(0, 500))
def test_cuts_are_always_safe_and_after_the_mark(
    plan: list[tuple[str, int]], mark: int, tokens: int
) -> None:
    messages = tuple(_conversation(plan))
    s = session(*messages, mark=min(mark, len(messages)))
    unsafe = unsafe_cuts(messages)
    cut = pick_cut(s, tokens, counter=TEN)
    if cut is not None:
        assert cut > s.compacted_upto
        assert cut in turn_boundaries(messages)
    piece = last_safe_cut(s, tokens, counter=TEN)
    if piece is None:
        assert s.compacted_upto == len(messages)
    else:
        assert piece > s.compacted_upto
        assert not unsafe[piece]
