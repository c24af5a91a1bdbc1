"""Bring your own system: ``hcrbench quickstart --system NAME`` makes NAME the protocol's subject.

NAME is one of
- a plugin (the ``hcrbench.retrievers`` entry-point group, see docs/plugins.md) or a built-in system type
  (``bm25``, ``dense``, ...): it is added to the config as one more ``[[systems]]`` entry of that type, indexing
  the whole documents of the corpus;
- a system the packaged config already runs (``bm25``, ``hybrid-rrf``, ``hcr-beam``, ...): it becomes the subject;
- ``runfile:PATH``: a TREC run file with the rankings of the test split's queries (``qid Q0 docid rank score tag``;
  queries of other splits in it are ignored), named after the file;
- ``runfile:test=A,dev=B,tune=C`` or ``runfile:FOLDER`` (a folder holding ``test.trec`` and, when made,
  ``dev.trec`` and ``tune.trec``): one run file per split (``params.paths``), so the subject also runs where the
  protocol pilots on tune and dev (the power plan); named after the folder (or the test file). Every id is
  checked once the corpus is there: ``FILE:LINE: unknown docid X`` / ``unknown qid X``, exit 2.

The rest of the config is the packaged one, unchanged: every system of the field runs as before, and HCR stays
as a comparator when the subject is not HCR. Only ``[protocol] system`` names the subject; the roles that name a
retriever's own ablations (``beam_only``, ``collapsed_only``, ``no_links``: HCR's) are dropped unless the
subject's type declares them (``Traits.ablation_roles``), so no rule compares the subject with HCR's ablations as
if they were its own. A new system whose type declares an encoder parameter (``Traits.encoder_param``) gets the
quickstart's encoder there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.errors import InputError

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

DEFAULT = "hcr"
RUNFILE = "runfile:"
#: Roles of ``[protocol]`` that name ablations of a hierarchical retriever (a subject keeps those its type declares).
TREE_ROLES = ("beam_only", "collapsed_only", "no_links")


@dataclass(frozen=True)
class SubjectSpec:
    """The system under test as the config will hold it: ``new`` when it is added as one more system."""

    name: str
    type: str | None = None  # None: a system the packaged config already runs
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def new(self) -> bool:
        return self.type is not None


def parse_system(text: str, *, encoder: str = "minilm", existing: list[str] | None = None) -> SubjectSpec:
    """``--system`` -> a :class:`SubjectSpec` (InputError naming ``--system`` for what cannot be a subject)."""
    from hcrbench.retrieve.base import available_retrievers, load_factory

    text = (text or "").strip()
    existing = existing or []
    if not text:
        raise InputError("give a system name, a plugin name or runfile:PATH", field="--system")
    if text.startswith(RUNFILE):
        return runfile_spec(text[len(RUNFILE):], existing)
    if text in existing:
        return SubjectSpec(text)
    known = available_retrievers()
    if text not in known:
        from hcrbench.retrieve.base import unknown_hint

        raise InputError(f"unknown system {text!r}{unknown_hint(text)}: not a system of the packaged config ({', '.join(existing)}), "
                         f"not an installed plugin or built-in ({', '.join(known)}), not runfile:PATH "
                         "(docs/plugins.md: how to bring a system)", field="--system")
    try:
        load_factory(text)  # a plugin that fails to import is named now, not after the field has run
    except InputError as e:
        raise InputError(e.problem, field="--system") from None
    from hcrbench.retrieve import traits

    params: dict[str, Any] = {}
    encoder_param = traits(text).encoder_param
    if encoder_param is not None:
        params[encoder_param] = "onnx" if encoder == "minilm" else "hash"
    return SubjectSpec(text, text, params)


def runfile_spec(rest: str, existing: list[str]) -> SubjectSpec:
    """``runfile:`` followed by ``rest`` (PATH, FOLDER or ``test=A,dev=B,tune=C``) as a subject."""
    from hcrbench.retrieve.runfile import SPLITS

    path = Path(rest).expanduser()
    if "=" in rest and not path.exists():  # test=A,dev=B,tune=C
        paths: dict[str, Path] = {}
        for part in rest.split(","):
            split, _, value = part.partition("=")
            split = split.strip()
            if split not in SPLITS or not value.strip():
                raise InputError(f"runfile:{rest}: {part.strip()!r} is not SPLIT=FILE with SPLIT one of "
                                 f"{', '.join(SPLITS)}", field="--system")
            if split in paths:
                raise InputError(f"runfile:{rest}: {split} is given twice", field="--system")
            paths[split] = Path(value.strip()).expanduser()
        stem = paths.get("test", Path("run")).name.split(".")[0]
        base = paths["test"].resolve().parent.name if "test" in paths and stem in SPLITS else stem
    elif path.is_dir():
        paths = {s: f for s in SPLITS for f in (path / f"{s}.trec", path / f"{s}.trec.gz") if f.is_file()}
        if "test" not in paths:
            raise InputError(f"{path} holds no test.trec (a folder of run files: test.trec, and dev.trec, "
                             "tune.trec when made)", field="--system")
        base = path.resolve().name
    else:
        if not path.is_file():
            raise InputError("run file not found", path=path, field="--system")
        return SubjectSpec(_run_name(path.name.split(".")[0], existing), "runfile", {"path": str(path.resolve())})
    if "test" not in paths:
        raise InputError(f"runfile:{rest}: give the test split's file (test=FILE); dev and tune are optional",
                         field="--system")
    for split, f in paths.items():
        if not f.is_file():
            raise InputError(f"run file of the {split} split not found", path=f, field="--system")
    return SubjectSpec(_run_name(base, existing), "runfile",
                       {"paths": {s: str(paths[s].resolve()) for s in SPLITS if s in paths}})


def _run_name(stem: str, existing: list[str]) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-.") or "run"
    return f"run-{name}" if name in existing else name


def system_types(text: str) -> dict[str, str]:
    """``{name: type}`` of every ``[[systems]]`` of a rendered config, in order."""
    return {s["name"]: s.get("type", "") for s in tomllib.loads(text).get("systems", [])}


def with_subject(text: str, spec: SubjectSpec) -> str:
    """The rendered config ``text`` with ``spec`` as ``[protocol] system`` (and as one more ``[[systems]]`` when
    it is new); the tree-only roles its type does not declare dropped. ``hcr`` returns ``text`` as is."""
    from hcrbench.protocol.tuning import toml_value
    from hcrbench.retrieve import traits

    if spec.name == DEFAULT and not spec.new:
        return text
    kind = spec.type if spec.new else system_types(text).get(spec.name, "")
    own_roles = traits(kind).ablation_roles
    proto = tomllib.loads(text).get("protocol", {})
    if spec.name == proto.get("kill_baseline"):
        raise InputError(f"{spec.name!r} is the kill baseline of the packaged config: choose another subject",
                         field="--system")
    out: list[str] = []
    section = ""
    for line in text.splitlines(keepends=True):
        head = line.strip()
        if head.startswith("["):
            section = head
        key = head.split("=", 1)[0].strip() if "=" in head else ""
        if section == "[protocol]" and key == "system":
            line = f"system = {toml_value(spec.name)}                          # the subject (--system)\n"
        elif section == "[protocol]" and key in TREE_ROLES and key not in own_roles:
            continue
        out.append(line)
    text = "".join(out)
    if spec.new:
        block = [f"\n[[systems]]                                # the subject (--system {spec.name})",
                 f"name = {toml_value(spec.name)}", f"type = {toml_value(spec.type)}"]
        if spec.params:
            block.append(f"params = {toml_value(spec.params)}")
        text = text.rstrip("\n") + "\n" + "\n".join(block) + "\n"
    return text
