"""The quickstart's configuration: the packaged protocol config (``templates/protocol.toml``; ``protocol_hash.toml``
for the model-free smoke run) rendered for a size, a seed, a set of worlds and a look (:func:`render_config`), the
tune split's choice locked into it (:func:`write_config`), and where the generated data goes
(:func:`data_folder`). Used by :mod:`hcrbench.protocol.quickstart` and its look loop
(:mod:`hcrbench.protocol.look_loop`)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.errors import InputError

ENCODERS = ("minilm", "hash")
SIZES = {"small": 500, "medium": 2000, "full": 3500}
CONFIG_NAME = "quickstart.toml"


def parse_sizes(text: str) -> list[str]:
    """``"small,medium,full"`` -> sizes ordered by document count (names or counts from 500 to the generator's
    largest); repeats refused."""
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise InputError("give at least one size", field="--sizes")
    from hcrbench.synth.generate import MAX_DOCS

    for t in items:  # every size checked before any work: a bad last size must not cost the earlier sizes' runs
        if t not in SIZES and not (t.isdigit() and 500 <= int(t) <= MAX_DOCS):
            raise InputError(f"unknown size {t!r} (small, medium, full or a document count from 500 to "
                             f"{MAX_DOCS:,})", field="--sizes")
    if len(set(items)) != len(items):
        raise InputError("a size is listed twice", field="--sizes")
    return sorted(items, key=n_docs)


def n_docs(size: str) -> int:
    return SIZES.get(size) or int(size)


def _seed_systems(encoder: str, seeds: int) -> str:
    backend = "onnx" if encoder == "minilm" else "hash"
    return "".join(f'[[systems]]\nname = "hcr-seed{s}"\ntype = "hcr"\nparams = {{ backend = "{backend}", seed = {s}'
                   f'${{hcr_tuned}} }}\nseed = {s}\nseed_group = "hcr"\nselection = "submodular"\n\n'
                   for s in range(1, seeds))


def tuned_params(chosen: dict[str, Any] | None) -> str:
    """``", beam_width = 8"``: the tune split's choice for a system, appended to its params (HCR's to every HCR
    system: its seeds and ablations)."""
    from hcrbench.protocol.tuning import toml_value

    return "".join(f", {k} = {toml_value(v)}" for k, v in (chosen or {}).items() if k != "selection")


def tuned_placeholders(text: str, tuned: dict[str, dict[str, Any]] | None) -> dict[str, str]:
    """``{"hcr_tuned": ", beam_width = 8", "raptor_tuned": ..., "hybrid_rrf_tuned": ...}``: every ``${<name>_tuned}``
    of the template (``-`` written ``_``) with that system's tuned params (empty when it was not tuned)."""
    import re

    by_ident = {name.replace("-", "_"): c for name, c in (tuned or {}).items()}
    return {f"{i}_tuned": tuned_params(by_ident.get(i)) for i in re.findall(r"\$\{(\w+)_tuned\}", text)}


def render_config(*, size: str, seed: int, encoder: str = "minilm", seeds: int = 3, n_trials: int = 200,
                  n_resamples: int = 10_000, data: str = "data/meridian-small-s0", fail_fast: bool = False,
                  tuned: dict[str, dict[str, Any]] | None = None, cross_encoder: str | None = None,
                  queries: int | None = None, worlds: int = 1, confidence: float | None = None,
                  look: int = 1) -> str:
    """The protocol config's TOML text (see the packaged templates), each tuned system's params as ``tuned``
    (``{system: {param: value}}``) chose them; with ``cross_encoder`` (weights: a folder or name) HCR and the kill
    baseline rerank with it and MaxSim is reported beside (:func:`hcrbench.protocol.field.with_cross_encoder`)."""
    if encoder not in ENCODERS:
        raise InputError(f"must be one of {', '.join(ENCODERS)}, got {encoder!r}", field="--encoder")
    if not 1 <= seeds <= 10:
        raise InputError(f"must be between 1 and 10, got {seeds}", field="--seeds")
    name = "protocol.toml" if encoder == "minilm" else "protocol_hash.toml"
    text = resources.files("hcrbench.experiment").joinpath("templates", name).read_text(encoding="utf-8")
    text = text.replace("${seed_systems}", _seed_systems(encoder, seeds))
    out = Template(text).substitute(size=size, output_dir=".", seed=seed, n_resamples=n_resamples, data=data,
                                    n_trials=n_trials, **tuned_placeholders(text, tuned))
    sel = ((tuned or {}).get("hcr") or {}).get("selection")
    if sel is not None:  # HCR's selection chosen on tune: every HCR system that used the design's default (not A5)
        out = out.replace('selection = "submodular"', f"selection = {json.dumps(sel)}")
    out = out.replace("fail_fast = false", f"fail_fast = {'true' if fail_fast else 'false'}")
    if queries is not None:  # the power plan's suite (protocol/query_plan.py)
        out = out.replace(f"generate_seed = {seed}\n", f"generate_seed = {seed}\ngenerate_queries = {int(queries)}\n",
                          1)
    if confidence is not None:  # a look of a sequential design: its intervals at the level it spends
        out = out.replace("[protocol]\n", f"[protocol]\nconfidence = {confidence!r}\n", 1)
    if worlds > 1:  # K independent worlds: tune w00, dev w01, test the rest (synth/worlds.py)
        extra = f"worlds = {int(worlds)}\n" + (f"look = {int(look)}\n" if look > 1 else "")
        out = out.replace(f"generate_seed = {seed}\n", f"generate_seed = {seed}\n{extra}", 1)
    if cross_encoder is not None:
        from hcrbench.protocol.field import with_cross_encoder

        out = with_cross_encoder(out, cross_encoder)
    return out


def data_folder(size: str, seed: int, queries: int | None = None, worlds: int = 1, look: int = 1) -> str:
    """The generated dataset's folder name under ``OUT/data``: ``meridian-<size>-s<seed>-worlds`` for a dataset
    of several worlds (adding test worlds keeps the folder and every world in it), else the one world's
    (:func:`hcrbench.protocol.query_plan.data_name`)."""
    from hcrbench.protocol.query_plan import data_name

    if worlds > 1:
        return f"meridian-{size}-s{seed}-worlds" + (f"-look{look}" if look > 1 else "")
    return data_name(size, seed, queries)


def write_config(folder: Path, size: str, *, seed: int, data_root: Path, tune: bool = True, progress: bool = False,
                 subject: Any = None, queries: int | None = None, **kw: Any) -> tuple[Path, dict[str, Any]]:
    """Tune on the tune split (``[protocol] tune``: an experiment in ``data_root/tune/<size>-s<seed>/``, its
    record in ``<size>-s<seed>.tuning.json`` beside it), then write ``folder/quickstart.toml`` with the choice
    locked in (unchanged bytes when nothing changed, so the run resumes). Returns the config's path and the
    tuning record. ``subject`` (a :class:`hcrbench.protocol.bring.SubjectSpec`, ``--system``): the system under
    test (default HCR)."""
    import os

    from hcrbench.experiment.config import parse_config
    from hcrbench.protocol.tuning import none_doc
    from hcrbench.protocol.tuning import tune as run_tuning

    folder.mkdir(parents=True, exist_ok=True)
    worlds = int(kw.get("worlds", 1))
    data = data_root / data_folder(size, seed, queries, worlds, int(kw.get("look", 1)))
    rel = Path(os.path.relpath(data, folder)).as_posix()
    if queries is not None:
        kw["queries"] = queries
    chosen: dict[str, Any] = {}
    doc = none_doc()
    if tune:
        draft = subject_config(render_config(size=size, seed=seed, data=rel, **kw), subject)
        cfg = parse_config(draft, folder / CONFIG_NAME)
        if cfg.protocol is not None and cfg.protocol.tune:
            if worlds > 1:
                from hcrbench.synth.worlds import ensure_worlds

                ensure_worlds(data, size=size, seed=seed, n_queries=queries, worlds=worlds,
                              look=int(kw.get("look", 1)))
            else:
                from hcrbench.synth.generate import ensure_meridian

                ensure_meridian(data, size=size, seed=seed, n_queries=queries,  # an older generator's folder is
                                grow=cfg.dataset.grow)                          # rewritten
            tag = f"{size}-s{seed}" + (f"-q{queries}" if queries else "") + ("-worlds" if worlds > 1 else "")
            doc = run_tuning(cfg, folder / CONFIG_NAME, data_root / "tune", tag, progress=progress)
            chosen = doc.get("chosen", {})
    text = subject_config(render_config(size=size, seed=seed, data=rel, tuned=chosen, **kw), subject)
    path = folder / CONFIG_NAME
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        atomic_write_text(path, text)
    return path, doc


def subject_config(text: str, subject: Any = None) -> str:
    """``text`` with ``subject`` as the system under test (:func:`hcrbench.protocol.bring.with_subject`)."""
    from hcrbench.protocol.bring import with_subject

    return text if subject is None else with_subject(text, subject)

