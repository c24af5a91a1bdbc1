"""Text-only expansion: identifiers and names for prose, imports and calls for code, at most 5, no repeats."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.retrieve.expand import expand_code, expand_prose, get_expander

PROSE = ("HR-POL-043 | Work trips Policy | Version 1\nOwner: Finance Operations | Approved by: Rahul Rossi, "
         "Head of Operations\nRequests are recorded in Helix HRIS. See \"travel exceptions\" and INC-2024-0117.")


def test_prose_identifiers_first_then_quoted_then_names() -> None:
    out = expand_prose("what does the work trips policy say", [PROSE], set())
    assert out[:3] == ["HR-POL-043", "INC-2024-0117", "travel exceptions"]
    assert "Rahul Rossi" in expand_prose("q", [PROSE], set(), limit=10)
    assert "Helix HRIS" in expand_prose("q", [PROSE], set(), limit=10)
    assert len(out) == 5


def test_prose_skips_seen_and_question_terms() -> None:
    out = expand_prose("who approved HR-POL-043", [PROSE], {"inc-2024-0117"})
    assert "HR-POL-043" not in out and "INC-2024-0117" not in out
    assert expand_prose("q", ["no capitals here at all."], set()) == []
    # a leading article or question word is dropped; single capitalised words are not names
    assert expand_prose("q", ["The Security Operations team met. Yesterday it rained."], set()) == [
        "Security Operations"]


CODE = '''import os.path
from collections import OrderedDict, namedtuple as nt
from .decoder import JSONDecoder

def load(fp, *, cls=None):
    """Read JSON."""
    text = fp.read()
    if cls is None:
        cls = JSONDecoder
    return cls(object_pairs_hook=OrderedDict).decode(_normalise(text))
'''


def test_code_imports_and_calls_without_builtins() -> None:
    out = expand_code("x", [CODE], set(), limit=10)
    assert out[:4] == ["OrderedDict", "namedtuple", "JSONDecoder", "path"]
    assert "_normalise" in out
    for skipped in ("read", "isinstance", "load", "cls", "None", "decode"):
        assert skipped not in out  # builtins, keywords, common methods, the chunk's own definitions
    assert len(expand_code("x", [CODE], set())) == 5
    assert "JSONDecoder" not in expand_code("x", [CODE], {"jsondecoder"})


def test_registry() -> None:
    assert get_expander("prose") is expand_prose
    assert get_expander("code") is expand_code


def test_prose_cuts_names_the_question_gives() -> None:
    text = "Compensation Analyst Rosa Iqbal works in People Operations, led by Mei Iqbal."
    out = expand_prose("Who leads the team that Rosa Iqbal works in?", [text], set())
    assert out == ["Compensation Analyst", "People Operations", "Mei Iqbal"]


_WORDS = ["Rahul", "Rossi", "HR-POL-043", "INC-7", "the", "Team", "Alpha", "\"quoted phrase\"", "def", "foo(",
          "import os", "from a import b", "x.bar(", "Baz(", "len(", "\n", "Security", "Operations", "of", "and"]


@settings(max_examples=200, deadline=None)
@given(chunks=st.lists(st.lists(st.sampled_from(_WORDS), max_size=30).map(" ".join), max_size=6),
       seen=st.sets(st.sampled_from(["rahul rossi", "hr-pol-043", "foo", "security operations", "baz"])),
       limit=st.integers(1, 5))
def test_expanders_respect_limit_seen_and_dedupe(chunks, seen, limit) -> None:
    for fn in (expand_prose, expand_code):
        out = fn("who is Rahul Rossi", chunks, set(seen), limit=limit)
        assert len(out) <= limit
        keys = [o.lower() for o in out]
        assert len(keys) == len(set(keys))
        assert not set(keys) & seen
        assert all(o.strip() for o in out)
        assert fn("who is Rahul Rossi", chunks, set(seen), limit=limit) == out  # deterministic
