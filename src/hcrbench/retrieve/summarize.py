"""Routing summaries for tree retrievers (HCR, RAPTOR): one ``Summarizer`` protocol, an offline default.

A tree node is represented by a short text that a query is matched against. The default,
:class:`ExtractiveSummarizer`, needs no model: it ranks the cluster's terms by class-based TF-IDF (c-TF-IDF, as
BERTopic does: a term's frequency in this cluster times log(1 + A / its frequency over all clusters), A the
average number of words per cluster) and then picks the cluster's sentences that carry the most of that weight,
in their original order, until a token cap. The summary starts with the top salient terms, so a lexical scorer
sees the cluster's vocabulary and a dense scorer sees real sentences. An LLM summarizer implements the same
protocol (``hcrbench.llm``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from hcrbench.data.tokens import TokenCounter, default_counter

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]{2,}")
_SENT = re.compile(r"(?<=[.!?])\s+|\n+")
#: Words that carry no topic (a short English list; the summary is for routing, not for reading).
_STOPWORD_TEXT = (
    "the and for are but not you all any can had her was one our out has have been from this that with they will "
    "would there their what when which who whom these those into than then them its also each other such only "
    "over under after before about more most some very just should could may might must shall upon per via "
    "your his she him how why where does did doing done being were able"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@runtime_checkable
class Summarizer(Protocol):
    """Turns the texts under a tree node into one routing text of at most ``max_tokens`` tokens."""

    name: str

    def summarize_many(self, groups: Sequence[Sequence[str]], max_tokens: int) -> list[str]:
        """One summary per group (all groups of one tree level at once, so corpus statistics are shared)."""
        ...


def words(text: str) -> list[str]:
    """Lower-cased content words (3+ characters, not a stopword)."""
    return [w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w not in STOPWORDS]


def sentences(text: str) -> list[str]:
    """Sentences split on end punctuation and line breaks (empty pieces dropped)."""
    return [s.strip() for s in _SENT.split(text) if s and s.strip()]


def ctfidf(groups: Sequence[Sequence[str]]) -> list[dict[str, float]]:
    """c-TF-IDF weight of every word in every group (``tf * log(1 + avg_words / total_tf)``)."""
    tfs = [Counter(w for t in g for w in words(t)) for g in groups]
    total: Counter[str] = Counter()
    for tf in tfs:
        total.update(tf)
    avg = max(1.0, sum(total.values()) / max(1, len(groups)))
    return [{w: c * math.log(1.0 + avg / total[w]) for w, c in tf.items()} for tf in tfs]


class ExtractiveSummarizer:
    """Offline, deterministic routing summary: salient terms + representative sentences, under a token cap."""

    name = "extractive-ctfidf"
    version = 2  # 2: scores no longer depend on the process's hash seed (cached trees built by 1 are rebuilt)

    def __init__(self, n_terms: int = 12, counter: TokenCounter | None = None) -> None:
        self.n_terms = n_terms
        self.counter = counter or default_counter()

    def summarize_many(self, groups: Sequence[Sequence[str]], max_tokens: int) -> list[str]:
        weights = ctfidf(groups)
        return [self._one(g, w, max_tokens) for g, w in zip(groups, weights)]

    def _one(self, texts: Sequence[str], weight: dict[str, float], max_tokens: int) -> str:
        terms = sorted(weight, key=lambda w: (-weight[w], w))[: self.n_terms]
        head = ", ".join(terms)
        budget = max_tokens - self.counter.count(head) - 1
        sents = list(dict.fromkeys(s for t in texts for s in sentences(t)))
        scored = []
        for i, s in enumerate(sents):
            ws = words(s)
            if ws:  # an exact sum: a set's order, and so a float sum's rounding, varies from process to process
                scored.append((-math.fsum(weight.get(w, 0.0) for w in set(ws)) / math.sqrt(len(ws)), i))
        chosen: list[int] = []
        for _, i in sorted(scored):
            n = self.counter.count(sents[i])
            if n <= budget:
                chosen.append(i)
                budget -= n
            if budget <= 0:
                break
        body = " ".join(sents[i] for i in sorted(chosen))
        return f"{head}. {body}".strip() if body else head
