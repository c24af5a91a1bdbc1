"""Where a quickstart of several worlds resumes: the folder's record of its looks (``OUT/looks.json``) and the
look a re-run starts at.

The look loop (:mod:`hcrbench.protocol.look_loop`) writes the record after every look, in one atomic write: the
arguments that shape the looks (size, seed, worlds, ``--max-worlds``, ``--budget``, the relook's look number), every
finished look (the entries of ``verdicts.json["sequential"]["looks"]``) and then either the next look it is about to
take (its worlds, and the forecast and encoding rate it was priced with) or, once the run stopped, why it stopped and
the verdicts it wrote. A re-run of the same folder with the same arguments reads it (:func:`resume_point`):

- **complete** (the run stopped): the last look is taken again, warm (every system reused, no new test world), and
  its recorded verdicts are written back as they were: the same verdicts.json, byte for byte, in seconds;
- **interrupted** (a look was under way): that look is taken again (the runner reuses what it had finished and takes
  over its pending scoring), after the looks recorded before it;
- **no record**, or a record of look 1 only with other arguments: look 1, as a first run (the look guard then says
  whether that is the same look or a second one);
- **stopped by the budget**, re-run with a larger ``--budget`` and otherwise the same arguments: the run goes on,
  the last look reused warm and the next one taken when it fits the new budget (the seconds of the recorded looks
  count against it);
- a record of **two or more looks with other arguments**: refused before any work unless ``--relook``. Starting
  again at look 1 would score the first test worlds again (and regenerate the data folder's later worlds away), which
  the look guard refuses anyway, only later.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.errors import InputError

RECORD_FILE = "looks.json"
RECORD_VERSION = 1


@dataclass
class Resume:
    """The look a run starts at. ``look``: its number (1: a first run); ``worlds``: the worlds it scores;
    ``history``: the looks finished before it; ``eta`` / ``rate``: the forecast it was priced with and the encoding
    rate it carries; ``spent_s``: the seconds those looks took (the budget counts them); ``verdicts``: the recorded
    verdicts when the recorded looks are complete (``look`` is then the last one, reused); ``stopped``: why it
    stopped; ``line``: what the console says (None for a first run)."""

    look: int = 1
    worlds: int = 3
    history: list[dict[str, Any]] = field(default_factory=list)
    eta: dict[str, Any] | None = None
    rate: float | None = None
    spent_s: float = 0.0
    verdicts: dict[str, Any] | None = None
    stopped: str | None = None
    line: str | None = None

    @property
    def complete(self) -> bool:
        return self.verdicts is not None


def loop_args(*, size: str, seed: int, worlds: int, cap: int, budget_s: float, look: int) -> dict[str, Any]:
    """The arguments that shape a run's looks (the record's ``args``): a re-run resumes only when they are equal."""
    return {"size": str(size), "seed": int(seed), "worlds": int(worlds), "max_worlds": int(cap),
            "budget_s": float(budget_s), "relook_look": int(look)}


def read_record(folder: Path) -> dict[str, Any] | None:
    """``folder``'s record of its looks; None when there is none, or it is unreadable or of another version (a
    first run then)."""
    try:
        doc = json.loads((Path(folder) / RECORD_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("version") != RECORD_VERSION or not isinstance(doc.get("looks"), list):
        return None
    return doc


def write_record(folder: Path, args: dict[str, Any], looks: list[dict[str, Any]], *,
                 next_look: dict[str, Any] | None = None, stopped: str | None = None,
                 verdicts: dict[str, Any] | None = None) -> None:
    """Record the finished ``looks`` and either the look to come (``next_look``: ``{"look", "worlds", "eta",
    "rate"}``) or why the run stopped and the verdicts it wrote (atomic: a kill leaves the last record whole)."""
    from hcrbench.stats.compare import _clean

    doc: dict[str, Any] = {"version": RECORD_VERSION, "args": args, "looks": looks}
    if next_look is not None:
        doc["next"] = next_look
    if stopped is not None:
        doc["stopped"] = stopped
        doc["verdicts"] = verdicts
    atomic_write_text(Path(folder) / RECORD_FILE,
                      json.dumps(_clean(doc), indent=1, ensure_ascii=False, allow_nan=False) + "\n")


def legacy_record(folder: Path, args: dict[str, Any]) -> dict[str, Any] | None:
    """The record of a folder whose complete looks were taken before ``looks.json`` was written: from its
    ``verdicts.json["sequential"]`` (its looks and why they stopped), when its first look had ``args``'s worlds and
    its cap was ``args``'s ``--max-worlds`` and the run ended (manifest complete, or its report under way); None
    otherwise. (The arguments it does not record are taken as this run's; the look guard still refuses a run whose
    systems or data differ from the folder's.)"""
    if args.get("relook_look") != 1:  # a relook's test worlds are not the ones the folder's looks scored
        return None
    try:
        verdicts = json.loads((Path(folder) / "verdicts.json").read_text(encoding="utf-8"))
        status = json.loads((Path(folder) / "manifest.json").read_text(encoding="utf-8")).get("status")
    except (OSError, ValueError, AttributeError):
        return None
    seq = verdicts.get("sequential") if isinstance(verdicts, dict) else None
    if not isinstance(seq, dict) or not isinstance(seq.get("looks"), list) or not seq["looks"] \
            or not isinstance(seq.get("stopped"), str) or status not in ("complete", "reporting"):
        return None
    looks = [e for e in seq["looks"] if isinstance(e, dict) and isinstance(e.get("worlds"), int)]
    if len(looks) != len(seq["looks"]) or looks[0]["worlds"] != args["worlds"] \
            or seq.get("max_worlds") != args["max_worlds"]:
        return None
    return {"version": RECORD_VERSION, "args": args, "looks": looks, "stopped": seq["stopped"], "verdicts": verdicts}


def _more_budget(record: dict[str, Any], args: dict[str, Any]) -> bool:
    """Whether ``args`` differ from the record's only by a larger ``--budget`` and the recorded looks stopped for
    the budget: the design (sizes, seeds, worlds, most worlds, so every look's level) is the same, so the run goes
    on where it stopped instead of starting again."""
    old = record.get("args") or {}
    looks = record.get("looks") or []
    if not looks or not isinstance(looks[-1], dict) or not str(record.get("stopped") or "").startswith("budget"):
        return False
    same = {k: v for k, v in old.items() if k != "budget_s"} == {k: v for k, v in args.items() if k != "budget_s"}
    try:
        return same and float(args["budget_s"]) > float(old["budget_s"])
    except (KeyError, TypeError, ValueError):
        return False


def _progress(record: dict[str, Any]) -> int:
    """The highest look the record says was taken or under way."""
    nxt = record.get("next") if isinstance(record.get("next"), dict) else {}
    return max(len(record["looks"]), int(nxt.get("look") or 0))


def _differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    names = {"worlds": "--worlds", "max_worlds": "--max-worlds", "budget_s": "--budget", "seed": "--seed",
             "size": "--size", "relook_look": "the relook's test worlds"}
    shown = []
    for k, name in names.items():
        if old.get(k) != new.get(k):
            a, b = old.get(k), new.get(k)
            if k == "budget_s":
                a, b = (f"{float(x) / 60:g} min" if isinstance(x, (int, float)) else x for x in (a, b))
            shown.append(f"{name} {a} then, {b} now")
    return "; ".join(shown) or "other settings"


def resume_point(record: dict[str, Any] | None, args: dict[str, Any], *, relook: bool = False,
                 folder: Path | str = "the folder") -> Resume:
    """The look a run with ``args`` starts at, given ``folder``'s record (module docstring). Raises InputError
    (``--relook``) when the record holds two or more looks taken with other arguments and ``relook`` is not set."""
    first = Resume(worlds=int(args["worlds"]))
    if record is None or (not record.get("looks") and not isinstance(record.get("next"), dict)):
        return first
    if _more_budget(record, args):  # stopped by the budget, re-run with a larger one: go on after the last look
        looks = [dict(e) for e in record["looks"] if isinstance(e, dict)]
        last = looks[-1]
        return Resume(look=len(looks), worlds=int(last["worlds"]), history=looks[:-1], eta=last.get("forecast"),
                      spent_s=sum(float(e.get("seconds") or 0.0) for e in looks),
                      line=f"going on after the recorded look {len(looks)} ({last['worlds']} worlds; it stopped for "
                           f"the budget, --budget {float(record['args']['budget_s']) / 60:g} min then, "
                           f"{float(args['budget_s']) / 60:g} min now): that look is reused warm, then the next one "
                           "is taken if it fits")
    if record.get("args") != args:
        if _progress(record) >= 2 and not relook:
            raise InputError(f"{folder} holds {len(record['looks'])} look(s) of a quickstart taken with other "
                             f"settings ({_differences(record.get('args') or {}, args)}); starting again at look 1 "
                             "would score its first test worlds a second time. Re-run with the same settings to "
                             "reuse them, or a second look needs --relook (recorded), or take fresh data with "
                             "another --seed or --out", field="--relook")
        return first
    looks = [dict(e) for e in record["looks"] if isinstance(e, dict)]
    spent = sum(float(e.get("seconds") or 0.0) for e in looks)
    stopped = record.get("stopped")
    if stopped is not None and looks and isinstance(record.get("verdicts"), dict):
        last = looks[-1]
        return Resume(look=len(looks), worlds=int(last["worlds"]), history=looks[:-1], eta=last.get("forecast"),
                      spent_s=spent - float(last.get("seconds") or 0.0), verdicts=record["verdicts"],
                      stopped=str(stopped),
                      line=f"reusing the recorded look {len(looks)} ({last['worlds']} worlds, {last.get('n_test')} "
                           f"test queries; the looks stopped: {stopped}): no new test world")
    nxt = record.get("next")
    if isinstance(nxt, dict) and int(nxt.get("look") or 0) == len(looks) + 1:
        n = len(looks) + 1
        return Resume(look=n, worlds=int(nxt["worlds"]), history=looks, eta=nxt.get("eta"), rate=nxt.get("rate"),
                      spent_s=spent,
                      line=f"resuming look {n} ({nxt['worlds']} worlds), which was under way; looks 1-{n - 1} are "
                           f"recorded" if n > 1 else f"resuming look 1 ({nxt['worlds']} worlds), which was under way")
    if looks:  # the last look finished but what came after it was not recorded: that look is taken again
        last = looks[-1]
        return Resume(look=len(looks), worlds=int(last["worlds"]), history=looks[:-1], eta=last.get("forecast"),
                      spent_s=spent - float(last.get("seconds") or 0.0),
                      line=f"resuming at look {len(looks)} ({last['worlds']} worlds), whose end was not recorded")
    return first
