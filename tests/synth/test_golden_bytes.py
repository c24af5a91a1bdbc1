"""Pinned bytes of one small Meridian world: a refactor of the generator must leave every file as it was.

Regenerated on purpose only with a new generator version (``manifest.json``'s ``generator_version``): then every
docs figure that depends on the bytes is re-measured and these hashes are replaced in the same change."""

from __future__ import annotations

import hashlib

from hcrbench.synth import generate_meridian

#: ``generate_meridian(out, "small", seed=5, n_queries=60, grow=False)`` under generator 5.1.0. Re-pinned from
#: 5.0.0 because documents now come in kinds (chat threads for some incidents, mail threads for some decisions and
#: announcements, minutes for some meetings, how-tos and long specifications for some systems, superseded copies of
#: older policy versions in four announcement slots), carry ``metadata.kind``, and now and then end with a footer or
#: hold a typo. The world (world.json) is unchanged; every other file changes (the planner reads the documents'
#: statements and token counts, so the suite it draws moves with the text).
VERSION = "5.1.0"
FILES = {
"corpus.jsonl": "b42bcfa8aaafdafec0cc9a19838592d983eced0125dd49f4254651c67fb85445",
    "evidence.jsonl": "d83c24c86977da0c2a20c340b7adf9e9f10ec539e376c153a2c884392a513b51",
    "provenance.jsonl": "7043ac4f2fe061711c156788e967a06f7ed863177af201b255f1c85095f91208",
    "qrels-topical/dev.tsv": "cc81bf8ae17954c38e729ffdd0f15396337172f170c032a929958df552e574dd",
    "qrels-topical/test.tsv": "bad7bc172435d1dca4db02972376b7fb90fce74d57c712c2e1748d70db4e77fc",
    "qrels-topical/tune.tsv": "213714395be0c7c6ffa8f83614e0065111a65770f945106699eb456b4a9707a6",
    "qrels/dev.tsv": "ea1ef3c32f4c92a80923afecf7a80ac2fdd37e05ff0293f95189a04779ad09e6",
    "qrels/test.tsv": "e2086b24ccb16253246c474e6899b0af54dd7bac955c4d4665d91371e605ed6c",
    "qrels/tune.tsv": "ef07b0285527b584f4676cce165dfa2fbfe60d014d5da33c00294f7c1531c579",
    "queries.jsonl": "afbecb09b500435985b1d32bc692817162456279e36ded4631f60b60e73ccffa",
    "queries.meta.jsonl": "24366ee35a83f5c68bccd6a2a713b036a5dab0882878323c803e5198eb568a66",
    "world.json": "80c0c615b913997333ff11e21aa170bf4ca1c247167f14dff2cdab0feebbe6f4",
}
MANIFEST = "e3796d184c81606c8e416008db7aaa25b0a37a028b79d99181c6864048ef89c2"


def test_a_small_world_at_seed_5_has_the_pinned_bytes(tmp_path):
    out = tmp_path / "golden"
    man = generate_meridian(out, "small", seed=5, n_queries=60, grow=False)
    if man["generator_version"] != VERSION:  # a deliberate new version: re-pin with the docs figures
        raise AssertionError(f"generator {man['generator_version']}: re-pin {__name__} (pinned under {VERSION})")
    got = {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in sorted(FILES)}
    assert got == FILES  # recomputed from the files, not read from the manifest
    assert hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest() == MANIFEST
