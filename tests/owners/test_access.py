"""The credential decides the owner: a principal token never reaches another principal."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from reverie.engine.owners import Grant, resolve
from reverie.engine.owners.tokens import GrantKind
from reverie.errors import AccessError

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def grant(kind: GrantKind, principal: str | None = None) -> Grant:
    return Grant(id="abc", kind=kind, principal=principal, label="", created=NOW)


def test_a_principal_token_reaches_its_own_memory_only() -> None:
    own = grant("principal", "alice")
    assert resolve(own, None, default="default").principal == "alice"
    assert resolve(own, "alice", default="default").principal == "alice"
    with pytest.raises(AccessError, match="another principal"):
        resolve(own, "bob", default="default")


def test_an_app_token_reaches_the_named_principal_and_must_name_one() -> None:
    app = grant("app")
    assert resolve(app, "lc:user1", default=None).principal == "lc:user1"
    with pytest.raises(AccessError, match="must name the end user"):
        resolve(app, None, default=None)


def test_the_servers_own_token_falls_back_to_the_default_principal() -> None:
    admin = grant("admin")
    found = resolve(admin, None, default="default")
    assert found.principal == "default"
    assert found.admin
    assert not found.named
    assert resolve(admin, "bob", default="default").principal == "bob"
