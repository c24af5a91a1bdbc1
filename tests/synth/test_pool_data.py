"""The sentence pools are data files (synth/corpus/pools/*.toml), validated on load with errors naming file and key."""

from __future__ import annotations

from importlib import resources

import pytest

from hcrbench.errors import InputError
from hcrbench.synth.corpus.pool_data import load_pools, parse_pools, validate_template
from hcrbench.synth.corpus.text import options

POOL_DIR = resources.files("hcrbench.synth.corpus").joinpath("pools")


def test_every_shipped_pool_file_loads_and_holds_templates():
    stems = sorted(p.name[:-5] for p in POOL_DIR.iterdir() if p.name.endswith(".toml"))
    assert len(stems) >= 10
    for stem in stems:
        pools = load_pools(stem)
        assert pools, stem
        for key, xs in pools.items():
            assert xs and all(validate_template(x) is None for x in xs), (stem, key)
            assert all(options(x) for x in xs)


def test_no_pool_sentence_is_left_in_python_modules():
    """The hand-written pools moved out of the code: no synth module holds a long bracketed template literal."""
    import ast
    from pathlib import Path

    import hcrbench.synth

    for path in sorted(Path(hcrbench.synth.__file__).parent.rglob("*.py")):  # every sub-package's modules too
        tree = ast.parse(path.read_text("utf-8"))
        templates = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                     and n.value.count("[") >= 3 and n.value.count("|") >= 6]
        assert len(templates) <= 3, (path.name, templates[:2])


@pytest.mark.parametrize("text, where", [
    ('"a.b" = "not a list"', "a.b"),
    ('"a.b" = []', "a.b"),
    ('"a.b" = ["fine", 3]', "item 2"),
    ('"a.b" = ["[open group"]', "not closed"),
    ('"a.b" = ["[a|[b]]"]', "nested"),
    ('"a.b" = ["closed] group"]', "without"),
    ('"a.b" = ["{x:>3} spec"]', "placeholder"),
    ('"a.b" = ["{unclosed"]', "placeholder"),
    ('"a.b" = ["   "]', "empty"),
    ('"a.b" = [', "not valid TOML"),
    ('', "no pools"),
])
def test_a_broken_pool_file_fails_with_one_line_naming_file_and_key(text, where):
    with pytest.raises(InputError) as e:
        parse_pools(text, "pools/broken.toml")
    msg = str(e.value)
    assert msg.startswith("pools/broken.toml: ") and where in msg and "\n" not in msg
    if text.startswith('"a.b" = ["') or "list" in text or "[]" in text:
        assert "a.b: " in msg


def test_a_valid_file_parses_in_order():
    assert parse_pools('"x" = ["[a|b] {n}.", "c."]\n"y" = ["d."]', "f.toml") == {"x": ["[a|b] {n}.", "c."],
                                                                                 "y": ["d."]}
