"""Principal ids and their folder names: the rule is reversible, so no two principals meet."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reverie.engine.owners import check_principal, folder_name, principal_of
from reverie.engine.owners.names import HOME_STATE
from reverie.errors import InputError


def test_plain_ids_are_their_own_folder_and_others_are_escaped() -> None:
    assert folder_name("alice") == "alice"
    assert folder_name("lc:user1") == "lc~3auser1"
    assert folder_name("Alice") == "~41lice"
    assert folder_name(".hidden") == "~2ehidden"
    assert folder_name("a/../b") == "a~2f..~2fb"


@given(st.text(min_size=1, max_size=40).filter(lambda s: s == s.strip()))
def test_folder_names_reverse_to_the_one_principal(principal: str) -> None:
    try:
        check_principal(principal)
    except InputError:
        return
    folder = folder_name(principal)
    assert "/" not in folder
    assert not folder.startswith(".")
    assert principal_of(folder) == principal


@given(st.text(alphabet="abc~3a.-_A", min_size=1, max_size=12))
def test_no_folder_is_read_as_two_principals(folder: str) -> None:
    principal = principal_of(folder)
    if principal is not None:
        assert folder_name(principal) == folder


def test_the_home_state_folder_names_no_principal() -> None:
    assert principal_of(HOME_STATE) is None
    assert principal_of("~3A") is None  # not the canonical spelling of ":"


@pytest.mark.parametrize("bad", ["", " alice", "alice\n", "a\x00b", "x" * 201, "\ud800"])
def test_ids_that_cannot_name_an_owner_are_refused(bad: str) -> None:
    with pytest.raises(InputError, match="principal"):
        check_principal(bad)
