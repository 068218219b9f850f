"""Which dense recall an engine opens with: none, the settings' choice, or a given encoder.

``MemoryEngine.open(..., dense=...)`` (and ``on_backend``, ``owners.Openers``) take one of:

- ``"settings"`` (the default): ``[recall] embeddings`` decides ("auto": the bundled model
  when the ``embeddings`` extra is installed; "off": none);
- ``"off"``: no dense recall, whatever the settings say; no model is ever loaded;
- an ``Encoder`` (``reverie.memory.recall.dense.encoder``): used as given, whatever the
  settings say (a test's ``HashingEncoder``, an application's own model).

The vectors are kept by the backend either way (``Backend.open_vectors``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, TypeAlias

from reverie.errors import InputError
from reverie.memory.recall.dense import open_dense
from reverie.memory.recall.dense.encoder import DenseStatus, Encoder

if TYPE_CHECKING:
    from reverie.config.sections import EmbeddingsMode
    from reverie.memory.recall.dense.retriever import DenseRetriever, Followed
    from reverie.storage.ports.vectors import VectorRowsPort

Dense: TypeAlias = Literal["off", "settings"] | Encoder
"""What ``dense=`` accepts (see the module docstring)."""

OFF_BY_OPENER = DenseStatus(on=False, reason='the engine was opened with dense="off"')


def check_dense(dense: Dense) -> Dense:
    """Return ``dense`` if it is one of the choices.

    Raises:
        InputError: ``dense`` is a string other than "off" and "settings".
    """
    if isinstance(dense, str) and dense not in ("off", "settings"):
        raise InputError(f"dense must be 'off', 'settings' or an Encoder, got {dense!r}")
    return dense


def open_chosen(
    dense: Dense,
    setting: EmbeddingsMode,
    rows: VectorRowsPort | None,
    index: Callable[[], Followed],
) -> tuple[DenseRetriever | None, DenseStatus]:
    """Open the dense recall ``dense`` names (``setting``: ``[recall] embeddings``)."""
    if isinstance(dense, str):
        if check_dense(dense) == "off":
            return None, OFF_BY_OPENER
        return open_dense(setting, rows, index)
    return open_dense("auto", rows, index, encoder=dense)
