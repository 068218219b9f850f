"""Fixtures for the search tests: an index over the shared ``workspace`` fixture."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reverie.storage.folder.index import SearchIndex
from reverie.storage.folder.workspace import Workspace


@pytest.fixture
def index(workspace: Workspace) -> Iterator[SearchIndex]:
    search_index = SearchIndex(workspace)
    yield search_index
    search_index.close()
