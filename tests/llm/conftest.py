"""Fixtures for the model-layer tests: a loopback model endpoint per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.llm.loopback import LoopbackServer


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    """A fresh loopback model endpoint on 127.0.0.1, closed after the test."""
    with LoopbackServer() as server:
        yield server
