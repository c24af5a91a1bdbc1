"""Ids read from a file kept as bytes until something needs them as ``str``.

A run of 5M lines has up to 5M distinct doc ids. As Python strings they cost ~80 bytes each and a second or two to
create, and scoring the run needs none of them: it only asks which of them the qrels judge. :class:`BytesVocab`
holds the distinct ids as one fixed-width, NUL-padded numpy bytes array (in code order) with a 64-bit key per id
(:func:`id_keys`: the id's own bytes up to 8 bytes, else a hash of them), so a lookup of the qrels' ids is a
``searchsorted`` of keys and a byte comparison of the few hits (:meth:`BytesVocab.codes_of`). ``list(vocab)`` (or
``Run.doc_vocab``) decodes every id once, in one pass.

The bytes are valid UTF-8 (the readers check before building one) and hold no NUL (the padding).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_PRIME = np.uint64(1099511628211)
_BASIS = np.uint64(14695981039346656037)
_SPREAD = np.uint64(0x9E3779B97F4A7C15)  # odd: multiplying by it permutes the 64-bit words


def id_keys(words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A 64-bit key per id from its fixed-width rows (``words``: uint64 view, ``(n, k)``; ``lengths`` in bytes).

    Ids of up to 8 bytes keep their own bytes as key, times an odd constant (a bijection of 64-bit words, so still
    one key per id and never a collision, but with the top bits depending on every byte: the readers sort keys by
    their top bits first); longer ones an FNV-style hash over their own 8-byte words (never the padding beyond
    them), so the key depends on the id only, whatever the width of the array."""
    n, k = words.shape
    if k == 0:
        return np.zeros(n, dtype=np.uint64)
    if k == 1:
        return words[:, 0] * _SPREAD
    lengths = np.asarray(lengths)
    with np.errstate(over="ignore"):
        h = _BASIS ^ lengths.astype(np.uint64)
        nwords = (lengths + 7) // 8
        for j in range(k):
            h = np.where(nwords > j, (h ^ words[:, j]) * _PRIME, h)
    return np.where(lengths <= 8, words[:, 0] * _SPREAD, h)


def fixed_width(ids: np.ndarray) -> np.ndarray:
    """``ids`` (an ``S`` array) widened to a multiple of 8 bytes (zero-padded), contiguous."""
    w = max(ids.dtype.itemsize, 1)
    return np.ascontiguousarray(ids.astype(f"S{-(-w // 8) * 8}"))


def keys_of(ids: np.ndarray) -> np.ndarray:
    """:func:`id_keys` of an ``S`` array of ids."""
    fw = fixed_width(ids)
    if not len(fw):
        return np.zeros(0, dtype=np.uint64)
    words = fw.view("<u8").reshape(len(fw), -1)
    return id_keys(words, np.char.str_len(fw))


def decode_all(rep: np.ndarray) -> list[str]:
    """Fixed-width, zero-padded ids -> str, through one newline-joined buffer (no bytes object per id)."""
    if not len(rep):
        return []
    w = rep.dtype.itemsize
    mat = np.ascontiguousarray(rep).view(np.uint8).reshape(-1, w)
    buf = np.concatenate([mat, np.full((len(mat), 1), 10, dtype=np.uint8)], axis=1)
    return buf[buf != 0].tobytes()[:-1].decode("utf-8").split("\n")


class BytesVocab(Sequence):
    """Distinct ids in code order as bytes (``raw``, an ``S`` array) with their keys; a read-only sequence of str."""

    __slots__ = ("_keys", "_sorted", "checked", "raw")

    def __init__(self, raw: np.ndarray, keys: np.ndarray | None = None, checked: bool = False,
                 sorted_keys: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        self.raw = raw
        #: every id is known to pass :func:`~hcrbench.data.ids.first_bad_id` (ASCII, no control character)
        self.checked = checked
        self._keys = keys
        #: the distinct keys sorted, and the code of each (the reader has them from its own sort)
        self._sorted = sorted_keys

    def __len__(self) -> int:
        return len(self.raw)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return decode_all(self.raw[i])
        return bytes(self.raw[i]).decode("utf-8")

    def __iter__(self):
        return iter(decode_all(self.raw))

    def tolist(self) -> list[str]:
        return decode_all(self.raw)

    @property
    def keys(self) -> np.ndarray:
        if self._keys is None:
            self._keys = keys_of(self.raw)
        return self._keys

    def _index(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(sorted keys, code of each)``, None when two ids share a key (then lookups decode the ids)."""
        if self._sorted is None:
            keys = self.keys
            order = np.argsort(keys)
            sk = keys[order]
            self._sorted = (sk, order.astype(np.int64)) if not np.any(sk[1:] == sk[:-1]) else (None, None)
        return None if self._sorted[0] is None else self._sorted

    def codes_of(self, ids: Sequence[str] | IdLookup) -> np.ndarray:
        """The code of each of ``ids`` here, -1 where absent: the keys of ``ids`` (usually the fewer: a qrels'
        judged ids) are looked up among the sorted keys here, and the bytes of every match are compared, so a key
        shared by two ids never maps one to the other. ``ids`` may be an :class:`IdLookup` made once for many
        vocabularies (a run read a batch at a time looks the same qrels ids up in every batch)."""
        want = ids if isinstance(ids, IdLookup) else IdLookup(ids)
        out = np.full(len(want), -1, dtype=np.int64)
        if not len(want) or not len(self.raw):
            return out
        index = self._index()
        if index is None:  # two ids here share a key: a dict of the decoded ids decides
            pos = {s: i for i, s in enumerate(self.tolist())}
            return np.array([pos.get(s, -1) for s in want.ids], dtype=np.int64)
        sk, sc = index
        at = np.minimum(np.searchsorted(sk, want.keys), len(sk) - 1)  # needles ascending: each search starts
        hit = np.flatnonzero(sk[at] == want.keys)  # from the last one's place
        code = sc[at[hit]]
        width = max(self.raw.dtype.itemsize, want.raw.dtype.itemsize)
        same = self.raw[code].astype(f"S{width}") == want.raw[hit].astype(f"S{width}")
        found = hit[same]
        out[want.order[found]] = code[same]
        out[want.nul] = -1
        return out


class IdLookup:
    """Ids to look up in :meth:`BytesVocab.codes_of`, made ready once: their UTF-8 bytes and 64-bit keys in
    ascending key order (each ``searchsorted`` then starts from the last one's place instead of a fresh walk down
    millions of keys, a cache miss a step)."""

    __slots__ = ("ids", "keys", "nul", "order", "raw")

    def __init__(self, ids: Sequence[str]) -> None:
        self.ids = ids
        raw = np.array([s.encode("utf-8", "surrogatepass") for s in ids], dtype="S")
        keys = keys_of(raw)
        #: the place in ``ids`` of each entry of ``raw`` / ``keys``
        self.order = np.argsort(keys, kind="stable")
        self.raw, self.keys = raw[self.order], keys[self.order]
        #: ids holding a NUL, never found: numpy drops trailing NULs and no id of a vocabulary holds one
        self.nul = [i for i, s in enumerate(ids) if "\x00" in s]

    def __len__(self) -> int:
        return len(self.ids)
