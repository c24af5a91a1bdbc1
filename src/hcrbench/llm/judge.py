"""An optional LLM judge: the Sufficient Context autorater, answer generation + correctness, agreement, hygiene.

- :func:`judge_sufficiency` — the autorater of Joren et al., "Sufficient Context: A New Lens on Retrieval
  Augmented Generation Systems" (ICLR 2025): one-shot, with its definition — a context is *sufficient* when a
  plausible answer to the question can be inferred from the context alone (whether that answer is the gold one
  does not matter). The prompt asks for step-by-step sub-questions, their answers, then a JSON label
  ``{"Sufficient Context": 1 | 0}``; the three :data:`SUFFICIENCY_PROMPTS` are wordings of the same definition
  (the first is the paper's structure) used for the prompt-sensitivity check.
- :func:`generate_answer` / :func:`judge_correctness` — for the conditional decomposition
  ``accuracy = P(sufficient) * P(correct | sufficient) + P(insufficient) * P(correct | insufficient)``
  (:func:`conditional_decomposition`).
- :func:`cohens_kappa` — agreement of the judge with the evidence rule, or between two judges.
- Hygiene (:func:`run_sufficiency_judge`): prompts carry only the question and the context (never a system
  name: :func:`check_no_system_ids`); every judgement is asked twice at temperature 0 (``variant`` 0 and 1, both
  cached) and a disagreement rate above 5% is flagged; 3 prompt wordings on 20 queries, flagged fragile above 10%
  variation; pairwise comparisons are asked in both orders (:func:`pairwise_preference`). A failed call or an
  unreadable answer is a recorded failure: excluded from every rate, counted, and reported — never scored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hcrbench.errors import InputError
from hcrbench.llm.client import LLMClient

_EXAMPLE = """### QUESTION
In which year did the publisher of the "Guide to Railway Safety" booklet cease to exist?
### REFERENCES
The "Guide to Railway Safety" booklet was published in 1991 by the British Railways Board.
The British Railways Board was a nationalised industry in the United Kingdom that operated from 1963 to 2001.
### EXPLANATION
1. Who published the booklet? The references say the British Railways Board.
2. When did the British Railways Board cease to exist? It operated until 2001.
3. Is anything else needed? No: the publisher and its end date are both stated.
### EVALUATION (JSON)
{"Sufficient Context": 1}"""

_TASK_A = """You are an expert evaluator of a QUESTION and its REFERENCES.
Criterion: "Sufficient Context" is 1 IF the REFERENCES are sufficient to infer an answer to the QUESTION, and 0 IF
the REFERENCES cannot be used to infer an answer to the QUESTION. A plausible answer that follows from the
REFERENCES is enough; it does not have to be correct in the world.
First list the step-by-step questions needed to decide, including assumptions implicit in the QUESTION and any
arithmetic. Then answer each of them. Finally use these answers to decide the criterion.
Output "### EXPLANATION" (text), then "### EVALUATION (JSON)" with {{"Sufficient Context": 1}} or
{{"Sufficient Context": 0}}.

EXAMPLE:
{example}

Now evaluate:
### QUESTION
{question}
### REFERENCES
{context}
### EXPLANATION
"""

_TASK_B = """Decide whether the REFERENCES below contain enough information for a careful reader to infer an
answer to the QUESTION using nothing else (the answer need only be plausible given the REFERENCES).
Reason briefly, then end with a line "### EVALUATION (JSON)" followed by {{"Sufficient Context": 1}} if they do
or {{"Sufficient Context": 0}} if they do not.

EXAMPLE:
{example}

### QUESTION
{question}
### REFERENCES
{context}
### EXPLANATION
"""

_TASK_C = """Task: sufficient-context check.
Sufficient (1): an answer to the question can be derived from the references alone.
Insufficient (0): the references lack at least one piece of information the answer needs.
Work through the sub-questions the question implies, then give "### EVALUATION (JSON)" with
{{"Sufficient Context": 1}} or {{"Sufficient Context": 0}}.

EXAMPLE:
{example}

### QUESTION
{question}
### REFERENCES
{context}
### EXPLANATION
"""

#: Three wordings of the published definition; index 0 follows the paper's autorater prompt.
SUFFICIENCY_PROMPTS = (_TASK_A, _TASK_B, _TASK_C)
_LABEL = re.compile(r'"?sufficient[ _]context"?\s*[:=]\s*"?([01])', re.IGNORECASE)


def sufficiency_prompt(question: str, context: str, prompt_variant: int = 0) -> str:
    """The autorater prompt for (question, context) in wording ``prompt_variant`` (0, 1 or 2)."""
    return SUFFICIENCY_PROMPTS[prompt_variant].format(example=_EXAMPLE, question=question, context=context)


def parse_label(text: str) -> bool | None:
    """The last ``"Sufficient Context": 0/1`` in an answer (the example's label comes before the answer's)."""
    found = _LABEL.findall(text or "")
    return None if not found else found[-1] == "1"


@dataclass
class Judgement:
    """One judged item: ``label`` (None when the call failed or the answer had no label) and why."""

    query_id: str
    label: bool | None
    raw: str | None = None
    error: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.label is not None


def check_no_system_ids(prompt: str, system_names: Sequence[str]) -> None:
    """Refuse a prompt that names a system (the judge must not know whose context it reads)."""
    for name in system_names:
        if name and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", prompt):
            raise InputError(f"prompt names the system {name!r}; judges must see no system identifiers",
                             field="prompt")


def judge_sufficiency(client: LLMClient, query_id: str, question: str, context: str, *, prompt_variant: int = 0,
                      variant: int = 0, system_names: Sequence[str] = (), max_tokens: int | None = None
                      ) -> Judgement:
    """Ask the autorater once; a failed call or an answer without a label is returned with ``error`` set.

    Hygiene: what the tool writes into the prompt (the instructions and example, with the question and the
    retrieved context left out) must name no system; the retrieved text itself may contain any word (a chunk
    that says "dense" does not identify the system called ``dense``). ``max_tokens``: the client's setting."""
    check_no_system_ids(sufficiency_prompt("", "", prompt_variant), system_names)
    prompt = sufficiency_prompt(question, context, prompt_variant)
    r = client.complete(prompt, variant=variant, max_tokens=max_tokens,
                        prompt_id=f"sufficiency/{query_id}/w{prompt_variant}/r{variant}")
    if not r.ok:
        return Judgement(query_id, None, None, r.error, r.cached)
    label = parse_label(r.text or "")
    return Judgement(query_id, label, r.text, None if label is not None else "no label in the answer", r.cached)


def generate_answer(client: LLMClient, question: str, context: str, *, variant: int = 0) -> str | None:
    """A short answer from the context alone (``None`` when the call failed)."""
    prompt = ("Answer the question using only the references. Reply with the answer only, in a few words; "
              f"if the references do not say, reply \"I don't know\".\n\nReferences:\n{context}\n\n"
              f"Question: {question}\nAnswer:")
    r = client.complete(prompt, variant=variant, max_tokens=64, prompt_id="answer")
    return r.text.strip() if r.ok and r.text is not None else None


def judge_correctness(client: LLMClient, question: str, gold: str | Sequence[str], predicted: str, *,
                      variant: int = 0) -> bool | None:
    """1/0 correctness of ``predicted`` against the gold answer (``None`` on failure or an unreadable reply)."""
    gold_text = gold if isinstance(gold, str) else "; ".join(gold)
    prompt = ("Is the model answer correct with respect to the reference answer? Ignore wording and style; "
              "all parts of the reference must be present. Reply with a single digit: 1 (correct) or 0 "
              f"(incorrect).\n\nQuestion: {question}\nReference answer: {gold_text}\nModel answer: {predicted}\n"
              "Digit:")
    r = client.complete(prompt, variant=variant, max_tokens=4, prompt_id="correctness")
    if not r.ok or r.text is None:
        return None
    m = re.search(r"[01]", r.text)
    return None if m is None else m.group(0) == "1"


def pairwise_preference(client: LLMClient, question: str, context_a: str, context_b: str) -> str | None:
    """Which context better supports answering: ``"a"``, ``"b"`` or ``"tie"`` — asked in both orders, and a
    preference counts only when both orders agree (position bias otherwise reads as a tie). ``None`` on failure."""
    def ask(first: str, second: str) -> str | None:
        prompt = ("Which set of references better supports answering the question? Reply with one character: "
                  f"1 or 2.\n\nQuestion: {question}\n\nReferences 1:\n{first}\n\nReferences 2:\n{second}\n"
                  "Better:")
        r = client.complete(prompt, max_tokens=4)
        if not r.ok or r.text is None:
            return None
        m = re.search(r"[12]", r.text)
        return None if m is None else m.group(0)

    one, two = ask(context_a, context_b), ask(context_b, context_a)
    if one is None or two is None:
        return None
    if one == "1" and two == "2":
        return "a"
    if one == "2" and two == "1":
        return "b"
    return "tie"


def kappa_score() -> Any:
    """scikit-learn's ``cohen_kappa_score`` (the one Cohen's kappa of hcrbench), or a one-line error naming the
    extra that installs it."""
    try:
        from sklearn.metrics import cohen_kappa_score
    except ImportError:
        raise InputError("Cohen's kappa needs scikit-learn, which is not installed: pip install "
                         "'hcrbench[agreement]'", field="kappa") from None
    return cohen_kappa_score


def cohens_kappa(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """Cohen's kappa of two raters' labels on the same items (pairs with a ``None`` are dropped); ``None`` when
    nothing is left or chance agreement is 1 (both raters constant and equal: kappa undefined). Computed by
    scikit-learn's ``cohen_kappa_score`` on the labels as strings (so mixed label types compare as ``repr``)."""
    pairs = [(repr(x), repr(y)) for x, y in zip(a, b) if x is not None and y is not None]
    if not pairs or len({v for p in pairs for v in p}) < 2:
        return None  # one label in all: chance agreement 1, kappa undefined
    score = kappa_score()
    return float(score([x for x, _ in pairs], [y for _, y in pairs]))


def conditional_decomposition(sufficient: Sequence[bool | None], correct: Sequence[bool | None]
                              ) -> dict[str, float | int | None]:
    """Accuracy split by sufficiency: ``P(sufficient)``, ``P(correct | sufficient)``, ``P(correct | not)``."""
    pairs = [(s, c) for s, c in zip(sufficient, correct) if s is not None and c is not None]
    suff = [c for s, c in pairs if s]
    insuff = [c for s, c in pairs if not s]
    return {"n": len(pairs), "sufficiency_rate": len(suff) / len(pairs) if pairs else None,
            "accuracy": float(np.mean([c for _, c in pairs])) if pairs else None,
            "accuracy_given_sufficient": float(np.mean(suff)) if suff else None,
            "accuracy_given_insufficient": float(np.mean(insuff)) if insuff else None}


@dataclass
class JudgeReport:
    """What :func:`run_sufficiency_judge` found; ``rate`` is over the judged items only."""

    model: str
    model_reported: str | None
    labels: dict[str, bool | None]
    n_items: int
    n_failed: int
    failures: dict[str, str] = field(default_factory=dict)
    rate: float | None = None
    repeat_disagreement: float | None = None
    repeat_flagged: bool = False
    prompt_variation: float | None = None
    prompt_fragile: bool = False
    kappa_vs_rule: float | None = None
    checks: list[str] = field(default_factory=list)  # the hygiene checks that actually ran

    def flags(self) -> str:
        """The hygiene flags in words: which ran, which fired ("not checked" when none ran)."""
        if not self.checks:
            return "not checked (nothing judged, or --no-repeat and no wording sample)"
        fired = [w for w, on in (("judgements differ between repeats (> 5%)", self.repeat_flagged),
                                 ("fragile to prompt wording (> 10%)", self.prompt_fragile)) if on]
        return "; ".join(fired) if fired else f"none ({' and '.join(self.checks)} checked)"

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "model_reported": self.model_reported, "n_items": self.n_items,
                "n_judged": self.n_items - self.n_failed, "n_failed": self.n_failed, "rate": self.rate,
                "repeat_disagreement": self.repeat_disagreement, "repeat_flagged": self.repeat_flagged,
                "prompt_variation": self.prompt_variation, "prompt_fragile": self.prompt_fragile,
                "kappa_vs_rule": self.kappa_vs_rule, "checks": list(self.checks), "flags": self.flags(),
                "failures": dict(sorted(self.failures.items())),
                "labels": dict(sorted(self.labels.items()))}


def _map(client: LLMClient, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    """``fn`` over ``items`` with ``client.config.concurrency`` calls in flight, results in item order."""
    workers = max(1, int(getattr(client.config, "concurrency", 1)))
    if workers == 1 or len(items) < 2:
        return [fn(it) for it in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, items))


def run_sufficiency_judge(client: LLMClient, items: Sequence[tuple[str, str, str]], *,
                          rule: dict[str, bool | None] | None = None, system_names: Sequence[str] = (),
                          sensitivity_queries: int = 20, repeat: bool = True,
                          progress: Callable[[int, int, Judgement], None] | None = None) -> JudgeReport:
    """Judge ``(query_id, question, context)`` items with the hygiene of the module docstring.

    Items are judged ``client.config.concurrency`` at a time; ``progress(done, total, judgement)`` is called
    as each first judgement comes back. A query whose two repeats disagree keeps the first label but counts toward
    ``repeat_disagreement``. ``rule`` (e.g. evidence coverage per query) gives ``kappa_vs_rule``.
    """
    import threading

    labels: dict[str, bool | None] = {}
    failures: dict[str, str] = {}
    done = [0]
    lock = threading.Lock()

    def first(it: tuple[str, str, str]) -> Judgement:
        j = judge_sufficiency(client, it[0], it[1], it[2], system_names=system_names)
        if progress is not None:
            with lock:
                done[0] += 1
                progress(done[0], len(items), j)
        return j

    check_no_system_ids(sufficiency_prompt("", ""), system_names)  # before any call
    firsts = _map(client, first, list(items))
    for (qid, _, _), j in zip(items, firsts):
        labels[qid] = j.label
        if not j.ok:
            failures[qid] = j.error or "failed"
    served = client.served_model() if hasattr(client, "served_model") else None
    reported = (served or {}).get("id") if served else None
    if reported is None:
        reported = next((h.model_reported for it in items if labels.get(it[0]) is not None
                         for h in [client.cached([{"role": "user", "content": sufficiency_prompt(it[1], it[2])}])]
                         if h is not None and h.model_reported), None)
    ok_items = [it for it in items if labels.get(it[0]) is not None]
    rep = None
    if repeat and ok_items:
        again = _map(client, lambda it: judge_sufficiency(client, it[0], it[1], it[2], variant=1,
                                                          system_names=system_names), ok_items)
        pairs = [(labels[it[0]], j2.label) for it, j2 in zip(ok_items, again) if j2.ok]
        rep = sum(a != b for a, b in pairs) / len(pairs) if pairs else None
    judged = [v for v in labels.values() if v is not None]
    variation = None
    sample = ok_items[:sensitivity_queries]
    if sample and sensitivity_queries > 0:
        others = _map(client, lambda it: [judge_sufficiency(client, it[0], it[1], it[2], prompt_variant=v,
                                                            system_names=system_names).label for v in (1, 2)],
                      sample)
        rows = [[labels[it[0]], *o] for it, o in zip(sample, others)]
        rows = [r for r in rows if all(x is not None for x in r)]
        variation = sum(len(set(r)) > 1 for r in rows) / len(rows) if rows else None
    kappa = None
    if rule is not None:
        qs = [q for q in labels if q in rule]
        kappa = cohens_kappa([labels[q] for q in qs], [rule[q] for q in qs])
    return JudgeReport(client.config.model, reported, labels, len(items), len(failures), failures,
                       float(np.mean(judged)) if judged else None, rep, bool(rep is not None and rep > 0.05),
                       variation, bool(variation is not None and variation > 0.10), kappa,
                       checks=[c for c, on in (("repeat", rep is not None), ("wording", variation is not None))
                               if on])


def judge_manifest(report: JudgeReport, client: LLMClient) -> dict[str, Any]:
    """The manifest entry: model (as configured and as the server names it), the settings every call used,
    which hygiene checks ran and what they found."""
    served = client.served_model() if hasattr(client, "served_model") else None
    return {**client.config.manifest(), "model_reported": report.model_reported, "served": served,
            "file_sha256": client.file_sha256() if hasattr(client, "file_sha256") else None,
            "prompt": "sufficient-context autorater (Joren et al., ICLR 2025), one-shot",
            "checks": list(report.checks), "flags": report.flags(),
            "repeat_flagged": report.repeat_flagged if "repeat" in report.checks else None,
            "prompt_fragile": report.prompt_fragile if "wording" in report.checks else None,
            "calls": client.calls, "failures": report.n_failed}


def dumps(report: JudgeReport) -> str:
    return json.dumps(report.to_dict(), indent=2, sort_keys=True) + "\n"
