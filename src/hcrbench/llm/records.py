"""Judge a user's own records: ``hcrbench judge --input FILE.jsonl``.

One JSON object per line::

    {"id": "q1", "question": "...", "context": "...", "answer": "...", "reference": "...", "label": true}

``question`` and ``context`` are required; ``id`` defaults to the line number; ``answer`` (a system's answer),
``reference`` (the gold answer, a string or a list) and ``label`` (an exact sufficiency label, e.g. evidence
coverage) are optional. :func:`judge_records` runs the design's conditional evaluation: sufficiency first, then
correctness only where the context was judged sufficient (an answer is generated from the context when the record
has none), and, where the records carry ``label``, the judge's calibration against it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hcrbench.errors import InputError, cut
from hcrbench.llm.agreement import calibration, judge_agreement
from hcrbench.llm.client import LLMClient
from hcrbench.llm.judge import (
    Judgement,
    generate_answer,
    judge_correctness,
    judge_manifest,
    run_sufficiency_judge,
)


@dataclass(frozen=True)
class Record:
    id: str
    question: str
    context: str
    answer: str | None = None
    reference: str | list[str] | None = None
    label: bool | None = None


def read_records(path: str | Path) -> list[Record]:
    """Read ``path`` (errors name the file, line and field; ids must not repeat)."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path=path, field="--input")
    out: list[Record] = []
    seen: set[str] = set()
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError) as e:  # RecursionError: nested too deep
                why = getattr(e, "msg", None) or cut(str(e) or "nested too deep", 120)
                raise InputError(f"not JSON ({why})", path=path, line=n) from None
            if not isinstance(obj, dict):
                raise InputError("expected a JSON object", path=path, line=n)
            for key in ("question", "context"):
                if not isinstance(obj.get(key), str) or not obj[key].strip():
                    raise InputError("missing or empty (a string is required)", path=path, line=n, field=key)
            rid = str(obj.get("id", n))
            if rid in seen:
                raise InputError(f"id {rid!r} repeats", path=path, line=n, field="id")
            seen.add(rid)
            ref = obj.get("reference")
            if ref is not None and not (isinstance(ref, str) or (isinstance(ref, list) and
                                                                 all(isinstance(x, str) for x in ref))):
                raise InputError("must be a string or a list of strings", path=path, line=n, field="reference")
            label = obj.get("label")
            if label is not None and not isinstance(label, bool):
                raise InputError(f"must be true or false, got {label!r}", path=path, line=n, field="label")
            ans = obj.get("answer")
            if ans is not None and not isinstance(ans, str):
                raise InputError("must be a string", path=path, line=n, field="answer")
            out.append(Record(rid, obj["question"], obj["context"], ans, ref, label))
    if not out:
        raise InputError("no records", path=path, field="--input")
    return out


def conditional_evaluation(client: LLMClient, records: Sequence[Record], sufficient: dict[str, bool | None]
                           ) -> dict[str, Any]:
    """Correctness only where the context was judged sufficient (records with a ``reference``): the share of
    sufficient contexts and, among them, the share answered correctly (failed calls counted, not scored)."""
    rows: dict[str, dict[str, Any]] = {}
    for r in records:
        if r.reference is None or not sufficient.get(r.id):
            continue
        ans = r.answer if r.answer is not None else generate_answer(client, r.question, r.context)
        ok = judge_correctness(client, r.question, r.reference, ans) if ans is not None else None
        rows[r.id] = {"answer": ans, "generated": r.answer is None, "correct": ok}
    with_ref = [r.id for r in records if r.reference is not None and sufficient.get(r.id) is not None]
    judged = [v["correct"] for v in rows.values() if v["correct"] is not None]
    return {"n_with_reference": len(with_ref),
            "sufficient": sum(1 for q in with_ref if sufficient[q]),
            "p_sufficient": (sum(1 for q in with_ref if sufficient[q]) / len(with_ref)) if with_ref else None,
            "n_correctness_judged": len(judged), "n_correctness_failed": len(rows) - len(judged),
            "p_correct_given_sufficient": (sum(judged) / len(judged)) if judged else None,
            "items": dict(sorted(rows.items()))}


def judge_records(client: LLMClient, records: Sequence[Record], *, judge2: LLMClient | None = None,
                  repeat: bool = True, progress: Callable[[int, int, Judgement], None] | None = None,
                  wording_sample: int = 20) -> dict[str, Any]:
    """Sufficiency of every record, then conditional correctness, a second judge's agreement and the
    calibration against exact labels where given. Returns the document ``hcrbench judge --input`` writes."""
    items = [(r.id, r.question, r.context) for r in records]
    exact = {r.id: r.label for r in records if r.label is not None}
    rep = run_sufficiency_judge(client, items, rule=exact or None, repeat=repeat, progress=progress,
                                sensitivity_queries=wording_sample)
    doc: dict[str, Any] = {"judge": judge_manifest(rep, client), **rep.to_dict(),
                           "conditional": conditional_evaluation(client, records, rep.labels)}
    if exact:
        doc["calibration"] = calibration(rep.labels, exact)
    if judge2 is not None:
        rep2 = run_sufficiency_judge(judge2, items, rule=exact or None, repeat=False, sensitivity_queries=0)
        doc["judge2"] = {"judge": judge_manifest(rep2, judge2), **rep2.to_dict()}
        doc["agreement"] = judge_agreement(rep.labels, rep2.labels)
        if exact:
            doc["judge2"]["calibration"] = calibration(rep2.labels, exact)
    return doc
