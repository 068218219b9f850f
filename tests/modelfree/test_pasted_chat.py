"""A group chat pasted one labelled line per message: every line is its speaker's, no label kept."""

from __future__ import annotations

from reverie.memory.modelfree.phrasing import as_fact
from reverie.memory.modelfree.transcript import Utterance, split_labelled, split_pasted


def _user(text: str) -> Utterance:
    return Utterance(role="user", text=text)


def test_a_batch_of_one_line_messages_from_several_people_is_split_by_speaker() -> None:
    batch = [
        _user("Ava: Took the Dunlin out on Lake Ossian and she didn't sink!"),
        Utterance(role="assistant", text="Dev: Wow Ava, that's stunning."),
        _user("Ava: Added Tromso to the plan, three nights by the water"),
    ]
    pieces = split_pasted(batch)
    said = [(p.name, p.text) for p in pieces if p.role == "user"]
    assert said == [
        ("Ava", "Took the Dunlin out on Lake Ossian and she didn't sink!"),
        ("Ava", "Added Tromso to the plan, three nights by the water"),
    ]


def test_alone_such_a_message_is_left_whole() -> None:
    one = _user("Ava: Took the Dunlin out on Lake Ossian and she didn't sink!")
    assert split_labelled(one) == [one]
    assert split_pasted([one]) == [one]


def test_key_value_lines_are_not_people_talking() -> None:
    batch = [_user("Backend: Python"), _user("Editor: Vim"), _user("Deploys: Thursdays")]
    assert split_pasted(batch) == batch


def test_a_message_with_an_unlabelled_line_is_left_whole() -> None:
    batch = [_user("Ava: hi Ben!"), _user("Ben: Added Bled to the plan\nand two nights in Kranj")]
    assert split_pasted(batch)[1] == batch[1]


def test_a_named_line_that_leaves_its_subject_out_gets_its_speaker() -> None:
    assert as_fact("Took the Dunlin out on Lake Ossian", "Ava") == (
        "Ava took the Dunlin out on Lake Ossian"
    )
    assert as_fact("Booked the flights to Bergen", "Ava") == "Ava booked the flights to Bergen"
    assert as_fact("We're planning Norway for the summer", "Ava") == (
        "Ava and others are planning Norway for the summer"
    )
    assert as_fact("Moving day is Saturday", "Ava") == "Moving day is Saturday"
    assert as_fact("Speed matters here", "Ava") == "Speed matters here"
    assert as_fact("Took the Dunlin out", None) == "Took the Dunlin out"


def test_a_labelled_line_asking_to_remember_is_someone_speaking() -> None:
    asked = _user("Maria: Remember that they prefer Celsius")
    assert split_labelled(asked) == [
        Utterance(role="user", text="Remember that they prefer Celsius", name="Maria")
    ]
    key = _user("Reminder: Remember the milk")  # a heading, not a person
    assert split_labelled(key) == [key]
