"""How a person would word a planned question: the same intent, the same needed facts, other words.

A generator writes each intent in a few canonical forms; a person asking about an incident says which system
broke and when rather than its ticket number, names a policy by its title, and opens or closes a question the
way messages to colleagues do. :func:`reword` turns a generator's text into such wording, in three steps, each
drawn from its own random stream (the planner's draw of entities is untouched):

1. **referents** (:func:`refer`): an identifier is replaced, in most queries (all but :data:`KEEP_ID`), by what
   a person would call the thing: an incident by its system and date ("the Atlas CRM incident of 9 May 2024"),
   a decision by its project and date, a meeting its notes name by number by its project, kind and date, a policy
   by its title. Only where the description picks out one record (one incident of the systems the question
   names that day, one decision or meeting of that project that day: ``describe``'s anchors check re-checks it
   from the files), where it does not give away a hop the question asks for (an incident's system when the
   question asks which system it hit), and where the entity it names is not owned by another split; else the
   date alone where one record of that kind has it; else the planner draws another question (in its last tries
   at a slot the identifier stays).
2. **phrasing** (:data:`PARAPHRASES`, :data:`PHRASES`): a canonical form is one of several phrasings of its
   intent, and the aspects an entity summary lists ("their job title, where they are based") are, most of the time
   each, in the words a person would more often use ("their role, their office").
3. **framing** (:data:`OPENERS`, :data:`CLOSERS`): now and then a greeting, a reason or a thanks around the
   question, as typed into an intranet search box or a team channel.

A vocabulary-mismatch query keeps only wording that still shares no stem with its evidence (the caller's check
returns it to its plain form otherwise), and no step adds a world name of its own: a frame that would name an
entity is not used.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable

from hcrbench.synth.corpus.meeting_refs import kind_in
from hcrbench.synth.corpus.text import human_date
from hcrbench.synth.questions.catalog import Catalog, QueryPlan

#: The share of identifiers kept as written (a person who has the ticket open pastes its number).
KEEP_ID = 0.04
#: The shares of questions given an opener and a closer.
OPEN_SHARE, CLOSE_SHARE = 0.45, 0.4

TICKET = re.compile(r"\b(?:(?:the )?incident )?(INC-\d+)\b")
DECISION = re.compile(r"\b(?:(?:the )?decision )?(DEC-\d{4})\b")
MEETING = re.compile(r"\bthe meeting (MTG-\d+) of \d{1,2} [A-Z][a-z]+ \d{4}\b")

OPENERS = ("Quick question: ", "Hi, ", "Hi all, ", "Sorry if this is written down somewhere, but ",
           "For a report I am writing: ", "Can anyone help? ", "Not sure where to look for this: ",
           "Before my one-to-one tomorrow: ", "I need this for the quarterly review: ", "Does anyone know? ",
           "New here, so apologies: ", "Trying to find this on the intranet: ", "Hello, ")
CLOSERS = (" Thanks!", " Thanks in advance.", " A link to the page would help too.", " Cheers.",
           " I could not find it on the wiki.", " Asking for the handover notes.", " Thank you!")

#: Canonical forms (a full match of the text) -> other phrasings of the same question; ``{x}`` and the other
#: groups carry over word for word (names, dates, lists), so the facts a question needs never change.
PARAPHRASES: tuple[tuple[re.Pattern, tuple[str, ...]], ...] = tuple((re.compile(p), alts) for p, alts in (
    (r"What was the root cause of (?P<x>.+)\?",
     ("What caused {x}?", "Why did {x} happen?", "What was behind {x}?", "root cause of {x}",
      "Do we know what caused {x}?")),
    (r"What caused (?P<x>.+)\?",
     ("What was the root cause of {x}?", "Why did {x} happen?", "cause of {x}")),
    (r"How long did the disruption in (?P<x>.+) last\?",
     ("How long did {x} last?", "How long was the disruption in {x}?", "duration of {x}",
      "How many minutes did {x} go on for?")),
    (r"What is the expected cost of (?:decision )?(?P<x>.+)\?",
     ("How much is {x} expected to cost?", "What will {x} cost?", "expected cost of {x}",
      "What cost was estimated for {x}?")),
    (r"What did (?P<x>.+) decide\?",
     ("What was decided in {x}?", "What was the outcome of {x}?", "Which option did {x} go for?",
      "outcome of {x}")),
    (r"When did version (?P<v>\d) of (?P<x>.+) take effect\?",
     ("When did version {v} of {x} come into force?", "From what date did version {v} of {x} apply?",
      "effective date of version {v} of {x}", "Since when has version {v} of {x} applied?")),
    (r"Who approved (?P<x>.+)\?", ("Who signed off {x}?", "Who gave the approval for {x}?", "approver of {x}")),
    (r"In which office is the person (?P<x>.+) reports to based\?",
     ("Where is {x}'s manager based?", "Which office does {x}'s manager work from?",
      "In which office does the manager of {x} sit?", "{x}'s manager: which office?")),
    (r"Where is the person assigned to (?P<x>.+) based\?",
     ("Who handled {x}, and where do they work from?", "Which office is the assignee of {x} in?",
      "Where does whoever was assigned {x} sit?")),
    (r"Of the projects (?P<x>.+), which has the largest approved budget\?",
     ("Which of the projects {x} was given the biggest budget?", "Projects {x_or}: which has the most money?",
      "Which project got the largest budget: {x_or}?")),
    (r"Which of (?P<x>.+) has the most users\?",
     ("Which is used by the most people: {x_or}?", "Of {x}, which one has the most users?",
      "Which of {x} do the most people use?")),
    (r"Summarise project (?P<x>[^:]+): (?P<y>.+)\.",
     ("Give me an overview of project {x}: {y}.", "Project {x} in brief: {y}?",
      "I need a summary of {x}: {y}.", "What should I know about project {x}? {y}.")),
    (r"For (?P<x>[^,]+), give (?P<y>.+)\.",
     ("Tell me about {x}: {y}.", "Profile of {x}: {y}?", "I need {x}'s details: {y}.",
      "Who is {x}? I need {y}.")),
    (r"What is project (?P<x>[^,]+) for, (?P<y>.+)\?",
     ("What is the purpose of project {x}, {y}?", "Why does project {x} exist, {y}?",
      "Project {x}: what is it for, {y}?")),
    (r"Who is (?P<x>.+) at Meridian, and what is their job title\?",
     ("What is {x}'s job title?", "Who is {x}, and what do they do here?", "job title of {x}")),
    (r"Which meetings did (?P<x>.+) attend\?",
     ("Which meetings has {x} been in?", "What meetings did {x} go to?", "meetings attended by {x}")),
    (r"Which incidents were assigned to (?P<x>.+)\?",
     ("Which incidents has {x} been assigned?", "What incidents did {x} work on as assignee?",
      "incidents assigned to {x}")),
    (r"Which team owns (?P<x>.+), who administers it and how many people use it\?",
     ("Who owns {x} (team and administrator), and how many people use it?",
      "{x}: which team owns it, who runs it day to day, and how many users does it have?")),
    (r"What kind of system is (?P<x>.+), which vendor supplies it, which team owns it and who administers it\?",
     ("What is {x}, who sells it to us, which team owns it and who administers it?",
      "{x}: what kind of system is it, which vendor, which owning team and which administrator?")),
))


#: Phrases of the generators' aspect lists -> what a person would more often write; each occurrence is swapped
#: seven times in ten (:data:`SWAP_SHARE`). Each alternative asks for exactly what the phrase asks for.
PHRASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("their job title", ("their role", "what they do", "their position")),
    ("where they are based", ("which office they work from", "their office", "where they sit")),
    ("who they report to", ("their manager", "who their boss is", "who they answer to")),
    ("every meeting they attended", ("the meetings they went to", "all the meetings they sat in on")),
    ("every incident assigned to them", ("the incidents they handled", "all the tickets they were given")),
    ("every incident they reported", ("the incidents they raised", "all the problems they flagged")),
    ("every decision they approved", ("the decisions they signed off", "all the calls they approved")),
    ("the systems they administer", ("the tools they look after", "which systems they run")),
    ("the policies they approved", ("the policies they signed off",)),
    ("the people who report to them", ("their direct reports", "who works for them")),
    ("who sponsors it", ("who the sponsor is", "who backs it")),
    ("its goal", ("what it is meant to achieve", "what it aims to do")),
    ("the product it changes", ("which product it touches", "the product it works on")),
    ("who leads it", ("who runs it", "who is in charge of it")),
    ("its budget", ("how much money it has", "its funding")),
    ("which vendor supplies it", ("who sells it to us", "which company makes it")),
    ("how many people use it", ("how many users it has", "how widely it is used")),
    ("every incident recorded against it", ("every problem it has had", "its whole incident history")),
)
SWAP_SHARE = 0.7


def _lower_first(text: str) -> str:
    """The question with its first word in lower case when that word is an ordinary one (never a name)."""
    first = text.split(" ", 1)[0]
    if first.istitle() and first.lower() in _ORDINARY:
        return first.lower() + text[len(first):]
    return text


_ORDINARY = frozenset({"what", "which", "who", "where", "when", "how", "why", "list", "give", "for", "in", "of",
                       "under", "across", "relative", "before", "was", "is", "did", "does", "has", "have",
                       "name", "tell", "profile", "project", "projects", "about", "summarise", "between",
                       "since", "from"})


def _ticket_ref(c: Catalog, plan: QueryPlan, t: dict, systems: set[str], alone: bool, r: random.Random
                ) -> str | None:
    """An incident by its date alone when it is the question's only incident, the question names no system and
    no other incident has that date (even where its system would do: naming a system joins the question to that
    system's topic, and a suite's topics stay independent); else by its system and date when no other incident of
    the systems the question names (``systems``) has that date; else None."""
    w = c.w
    sy = w.get(t["system"])
    day = human_date(t["date"])
    same_day = _world(c, ("tickets_on", t["date"]), lambda: [x for x in w.tickets if x["date"] == t["date"]])
    reveals = f"tkt:{t['id']}:system" in plan.facts
    other_split = c.state.split_owner.get(("entity", sy.id), c.state.split) != c.state.split
    by_system = not reveals and not other_split and sum(x["system"] in systems for x in same_day) == 1
    if alone and len(same_day) == 1:
        return r.choice((f"the incident opened on {day}", f"the incident of {day}", f"the {day} incident"))
    if by_system:
        return r.choice((f"the {sy.name} incident of {day}", f"the {sy.name} incident on {day}",
                         f"the incident on {sy.name} on {day}"))
    return None


def _decision_ref(c: Catalog, d: dict, r: random.Random) -> str | None:
    """A decision by its date alone when no other decision has it (even where its project would do), else by its
    project and date (one decision per project per day); None when the project is owned by
    another split and the date is shared."""
    w = c.w
    p = w.get(d["project"])
    day = human_date(d["date"])
    same_day = _world(c, ("decisions_on", d["date"]), lambda: [x for x in w.decisions if x["date"] == d["date"]])
    by_project = c.state.split_owner.get(("entity", p.id), c.state.split) == c.state.split and \
        sum(x["project"] == p.id for x in same_day) == 1
    if len(same_day) == 1:
        return r.choice((f"the decision of {day}", f"the decision taken on {day}"))
    if by_project:
        return r.choice((f"the {p.code_name} decision of {day}", f"the decision on {p.code_name} of {day}"))
    return None


def _meeting_ref(c: Catalog, m: dict) -> str | None:
    """A meeting whose notes write its id (another meeting was held that day) by its project, kind and date
    ("the Tundra steering meeting of 27 April 2024", as its notes' title writes them) when it is its project's only
    meeting that day and no other split owns the project; else None."""
    w = c.w
    p = w.get(m["project"])
    same = _world(c, ("meetings_on", m["project"], m["date"]),
                  lambda: [x for x in w.meetings if x["project"] == m["project"] and x["date"] == m["date"]])
    if len(same) != 1 or c.state.split_owner.get(("entity", p.id), c.state.split) != c.state.split:
        return None
    kind = kind_in(c.title(m["doc"])) or "meeting"
    return f"the {p.code_name} {kind} of {human_date(m['date'])}"


def _world(c: Catalog, key: tuple, make: Callable[[], object]):
    """A value computed from the world alone, once per catalog."""
    got = c.cache.get(("wording", *key))
    if got is None:
        got = c.cache[("wording", *key)] = make()
    return got


def refer(c: Catalog, plan: QueryPlan, r: random.Random) -> tuple[str, bool]:
    """``plan.text`` with its identifiers named as a person would (module docstring, step 1), and whether an
    identifier drawn to be described had no description that picks it out (the caller draws another question,
    so identifiers stay a minority). A question naming a list of incidents (a team's) keeps their numbers."""
    w = c.w
    text = plan.text
    missed = False
    tickets = _world(c, ("tickets_by_id",), lambda: {t["id"]: t for t in w.tickets})
    decisions = _world(c, ("decisions_by_id",), lambda: {d["id"]: d for d in w.decisions})
    found = [tickets[m.group(1)] for m in TICKET.finditer(text) if m.group(1) in tickets]
    if found and len(found) <= 2 and "incidents INC-" not in text and r.random() >= KEEP_ID:
        named = {s.id for s in w.systems if s.name in text}
        systems = named | {t["system"] for t in found}
        alone = len(found) == 1 and not named
        refs = {t["id"]: _ticket_ref(c, plan, t, systems, alone, r) for t in found}
        if all(refs.values()):  # every incident of the question named the same way, or none
            text = TICKET.sub(lambda m: refs.get(m.group(1)) or m.group(0), text)
        else:
            missed = True
    found_d = [decisions[m.group(1)] for m in DECISION.finditer(text) if m.group(1) in decisions]
    if found_d and len(found_d) <= 2 and r.random() >= KEEP_ID:
        refs = {d["id"]: _decision_ref(c, d, r) for d in found_d}
        if all(refs.values()):
            text = DECISION.sub(lambda m: refs.get(m.group(1)) or m.group(0), text)
        else:
            missed = True
    meetings = _world(c, ("meetings_by_id",), lambda: {m["id"]: m for m in w.meetings})
    found_m = [meetings[m.group(1)] for m in MEETING.finditer(text) if m.group(1) in meetings]
    if found_m and r.random() >= KEEP_ID:
        refs = {m["id"]: _meeting_ref(c, m) for m in found_m}
        if all(refs.values()):
            text = MEETING.sub(lambda x: refs.get(x.group(1)) or x.group(0), text)
        else:
            missed = True
    titles = _world(c, ("policy_titles",), lambda: _unique_titles(c))
    for pid, title in titles.items():
        if pid in text and r.random() >= KEEP_ID:
            text = re.sub(rf"\b(?:the )?{re.escape(pid)}\b", f"the {title}", text)
    return (text[:1].upper() + text[1:] if text.startswith("the ") else text), missed


def _unique_titles(c: Catalog) -> dict[str, str]:
    count: dict[str, int] = {}
    for p in c.w.policies:
        count[p.title] = count.get(p.title, 0) + 1
    return {p.id: p.title for p in c.w.policies if count[p.title] == 1}


def rephrase(text: str, r: random.Random) -> str:
    """One phrasing of ``text``'s canonical form (itself among them), chosen by ``r`` (step 2)."""
    for pattern, alts in PARAPHRASES:
        m = pattern.fullmatch(text)
        if m:
            pick = r.randrange(len(alts) + 1)
            groups = m.groupdict()
            # a choice among a list reads "A, B or C" once the question no longer says "of A, B and C"
            groups.update({f"{k}_or": re.sub(r" and (?!.* and )", " or ", v) for k, v in m.groupdict().items()})
            return text if pick == len(alts) else alts[pick].format(**groups)
    return text


def swap_phrases(text: str, r: random.Random) -> str:
    """``text`` with some of its aspect phrases (:data:`PHRASES`) in other words."""
    for phrase, item, alts in _phrase_items():
        # (a text without the phrase cannot match: the regex is skipped, the random draws are the same)
        if phrase in text and item.search(text) and r.random() < SWAP_SHARE:
            text = item.sub(r.choice(alts), text)
    return text


@functools.cache
def _phrase_items() -> tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...]:
    """Per aspect phrase of :data:`PHRASES` the pattern of it as an item of a list ("X: a, b and c"), never
    inside a clause ("what is its budget"); compiled once (the planner rewords thousands of drafts)."""
    return tuple((phrase, re.compile(rf"(?:(?<=[:,] )|(?<= and )|(?<=give )){re.escape(phrase)}(?=[,.?]| and )"),
                  alts) for phrase, alts in PHRASES)


def frame(text: str, r: random.Random, names_in: Callable[[str], list[str]]) -> str:
    """``text`` with, now and then, an opener and a closer (step 3) that name no world entity."""
    opener = r.choice(OPENERS) if r.random() < OPEN_SHARE else ""
    closer = r.choice(CLOSERS) if r.random() < CLOSE_SHARE else ""
    if names_in(opener + closer):
        return text
    if opener.endswith(": ") and ":" in text:
        opener = ""  # (one colon to a question)
    if opener:
        body = _lower_first(text)
        text = opener + (body[:1].upper() + body[1:] if opener.rstrip().endswith(("?", ".")) else body)
    if closer and text.endswith(("?", ".")):  # (a search-box phrase, without a question mark, has none)
        text += closer
    return text


def reword(c: Catalog, plan: QueryPlan, r: random.Random, names_in: Callable[[str], list[str]]) -> str | None:
    """The text a person would type for ``plan`` (module docstring): referents, phrasing, framing; None when an
    identifier drawn to be described has no unique description (in the planner's last tries at a slot,
    ``relaxed``, the identifier stays instead)."""
    text, missed = refer(c, plan, r)
    if missed and not c.state.relaxed:
        return None
    return frame(swap_phrases(rephrase(text, r), r), r, names_in)
