"""``VectorMatrix``: every stored vector in memory, quantised, and the nearest rows to a query.

Representation. A vector is kept as int8 codes (one byte per dimension) and one float32 scale
(the row's largest magnitude over 127): 388 bytes for e5's 384 dimensions against 1,536 as
float32, so 1M items hold 388 MB, not 1.5 GB. Beside each row sit its session as a small
integer and the 12-byte hash of the text it came from, in numpy arrays (no Python object per
row but its reference string).

A query is scored exactly over the rows in scope (one session's, or all): the query is
quantised the same way and the codes multiplied as integers, then scaled. The integer dot
products are numkong's SIMD kernel (``numkong.cdist``, exact, without the GIL): 1.8 ms over
100k rows of 384 against 17.9 ms for ``numpy.einsum`` into int32 (which was itself four times
cheaper than converting the codes to float32 first), bench/dense.py. Sign bits as a first pass
were measured and left out: on the same vectors, keeping a third of the rows by Hamming
distance still lost 14 % of the float top 80 (recall fuses 80 items deep).

Blobs (what the row stores persist, ``reverie.storage.ports.vectors``): the codes followed by
the scale (``dim + 4`` bytes). A blob of ``2 * dim`` bytes is the float16 of stores written
before 2026-12-02 and is read (and quantised) as such.

Invariants.
- A reference has one row; putting it again replaces the vector and the hash in place.
- A row's session never changes (a reference names one session for good).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numkong
import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

    Floats = npt.NDArray[np.float32]


def quantise(vectors: Floats) -> tuple[npt.NDArray[np.int8], Floats]:
    """Return int8 codes and one scale per row of ``vectors`` (rows x dim float32)."""
    peak = np.abs(vectors).max(axis=1)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    codes = np.clip(np.rint(vectors / scales[:, None]), -127, 127).astype(np.int8)
    return codes, scales


def to_blob(codes: npt.NDArray[np.int8], scale: float) -> bytes:
    """One row as stored: its codes, then its scale."""
    return codes.tobytes() + np.float32(scale).tobytes()


def from_blob(blob: bytes, dim: int) -> tuple[npt.NDArray[np.int8], float]:
    """A stored row back as codes and scale (float16 blobs of older stores are quantised)."""
    if len(blob) == dim + 4:
        return np.frombuffer(blob[:dim], dtype=np.int8), float(np.frombuffer(blob[dim:], "<f4")[0])
    if len(blob) == 2 * dim:
        codes, scales = quantise(np.frombuffer(blob, dtype=np.float16).astype(np.float32)[None])
        return codes[0], float(scales[0])
    raise ValueError(f"a stored vector of {len(blob)} bytes, expected {dim + 4}")


def dots(block: npt.NDArray[np.int8], query: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
    """The exact integer dot product of each row of ``block`` with ``query`` (1 x dim).

    numkong sums in integers and returns them as float64, exact: a sum of 384 products of
    int8 codes stays under 2**23 in magnitude.
    """
    if not len(block):
        return np.zeros(0, dtype=np.float64)
    return np.asarray(numkong.cdist(query, block, metric="dot"), dtype=np.float64).reshape(-1)


class VectorMatrix:
    """Quantised vectors by reference, grown as rows are put (see the module docstring)."""

    def __init__(self, dim: int) -> None:
        """An empty matrix of ``dim``-wide vectors."""
        self.dim = dim
        self.refs: list[str] = []
        self.rows: dict[str, int] = {}
        self._sessions: dict[str | None, int] = {}
        self._codes = np.zeros((0, dim), dtype=np.int8)
        self._scales = np.zeros(0, dtype=np.float32)
        self._session = np.zeros(0, dtype=np.int32)
        self._hashes = np.zeros((0, 12), dtype=np.uint8)

    def __len__(self) -> int:
        """How many rows."""
        return len(self.refs)

    def nbytes(self) -> int:
        """Bytes the arrays hold (their capacity: rows are added in doubling blocks)."""
        arrays = (self._codes, self._scales, self._session, self._hashes)
        return sum(a.nbytes for a in arrays)

    def has(self, ref: str, digest: bytes) -> bool:
        """Whether ``ref`` has a vector made from the text hashed to ``digest``."""
        row = self.rows.get(ref)
        return row is not None and self._hashes[row].tobytes() == digest

    def put(
        self,
        ref: str,
        key: str | None,
        digest: bytes,
        codes: npt.NDArray[np.int8],
        scale: float,
    ) -> None:
        """Store one row (replacing ``ref``'s vector if it had one)."""
        row = self.rows.get(ref)
        if row is None:
            row = len(self.refs)
            if row == len(self._codes):
                self._grow(max(1024, 2 * row))
            self.refs.append(ref)
            self.rows[ref] = row
            self._session[row] = self._sessions.setdefault(key, len(self._sessions))
        self._codes[row] = codes
        self._scales[row] = scale
        self._hashes[row] = np.frombuffer(digest[:12].ljust(12, b"\0"), dtype=np.uint8)

    def nearest(
        self, query: Floats, *, limit: int, session_key: str | None
    ) -> list[tuple[str, float]]:
        """The ``limit`` references closest to ``query`` (a unit float vector), best first.

        ``session_key``: only that session's rows; None: every row.
        """
        used = len(self.refs)
        if session_key is None:
            rows = np.arange(used)
        else:
            sid = self._sessions.get(session_key)
            if sid is None:
                return []
            rows = np.flatnonzero(self._session[:used] == sid)
        if not len(rows) or limit <= 0:
            return []
        scores = self._scores(rows, query.astype(np.float32), whole=session_key is None)
        count = min(limit, len(rows))
        best = np.argpartition(-scores, count - 1)[:count]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [(self.refs[int(rows[n])], float(scores[n])) for n in best]

    def _scores(self, rows: npt.NDArray[np.intp], query: Floats, *, whole: bool) -> Floats:
        """Cosine of each of ``rows`` with ``query`` (``whole``: ``rows`` is every row in order).

        The query is quantised like a row, and the codes multiplied as integers (``dots``: no
        float copy of the matrix), then scaled.
        """
        codes, scales = quantise(query[None])
        block = self._codes[: len(rows)] if whole else self._codes[rows]
        out: Floats = dots(block, codes).astype(np.float32) * self._scales[rows] * scales[0]
        return out

    def _grow(self, size: int) -> None:
        used = len(self.refs)

        def grown(array: npt.NDArray[np.generic]) -> npt.NDArray[np.generic]:
            out = np.zeros((size, *array.shape[1:]), dtype=array.dtype)
            out[:used] = array[:used]
            return out

        self._codes = grown(self._codes)  # type: ignore[assignment]
        self._scales = grown(self._scales)  # type: ignore[assignment]
        self._session = grown(self._session)  # type: ignore[assignment]
        self._hashes = grown(self._hashes)  # type: ignore[assignment]
