"""Pinned bytes of one small Meridian world: a refactor of the generator must leave every file as it was.

Regenerated on purpose only with a new generator version (``manifest.json``'s ``generator_version``): then every
docs figure that depends on the bytes is re-measured and these hashes are replaced in the same change."""

from __future__ import annotations

import hashlib

from hcrbench.synth import generate_meridian

#: ``generate_meridian(out, "small", seed=5, n_queries=60, grow=False)`` under generator 5.0.0-dev.
#: Re-pinned for 5.0.0-dev because the year's events moved (decisions and meetings spread over the months with
#: day-numbered decisions, incidents on systems by their load, severities in a realistic mix), staff draw on a
#: larger pool of first names and body text keeps to its page's subject; every file follows from the world and
#: its text.
VERSION = "5.0.0-dev"
FILES = {
    "corpus.jsonl": "14920cfe2aa497b875ce12e9c3a44cdad5d145b455fd42cff35fe36a99d34fb1",
    "evidence.jsonl": "34e427f1baf2783923539f44cae09d2bddab749743395663bed4f4d4480a4f0d",
    "provenance.jsonl": "2f079224d7ced0c6c96a16616087d0fc469ab1efb42795fcfb88b1ca1c838a29",
    "qrels-topical/dev.tsv": "2ab86c0cad1e21be13adf0761b737408f90580bfad167c77dbbe2da576578160",
    "qrels-topical/test.tsv": "989f2e19f4332634fe2002c3869237a9fde1ee538fdd5e18510b516a88878388",
    "qrels-topical/tune.tsv": "82bd289e12ce3d5439d446fb9ee821c366248a9eb0194959fec600549b188dbb",
    "qrels/dev.tsv": "c1096f27887034e8d7ad81143dd4e9675ebf60fcd0d39176aa0040c4b732e260",
    "qrels/test.tsv": "29d2b4b7fe53bc90512497032744a71355abca8e9a30082327045498df086219",
    "qrels/tune.tsv": "9a0202b4c7185bb5a1bf630d79f97d170c02d6c9c7626386f6d826f455a1f7a1",
    "queries.jsonl": "1fa2a68e5b1cb3dc8ebb328cf8da137755b2504dbe69ad3837641fa2b3bc0a7d",
    "queries.meta.jsonl": "3787469fb7e881094175d6a3d694a59ac277596d010b5478aa34090a2290f1a7",
    "world.json": "80c0c615b913997333ff11e21aa170bf4ca1c247167f14dff2cdab0feebbe6f4",
}
MANIFEST = "c565a3dadadeb18891c1bb13f6f51c15bf50c8571178593233d1f979518ca34b"


def test_a_small_world_at_seed_5_has_the_pinned_bytes(tmp_path):
    out = tmp_path / "golden"
    man = generate_meridian(out, "small", seed=5, n_queries=60, grow=False)
    if man["generator_version"] != VERSION:  # a deliberate new version: re-pin with the docs figures
        raise AssertionError(f"generator {man['generator_version']}: re-pin {__name__} (pinned under {VERSION})")
    got = {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in sorted(FILES)}
    assert got == FILES  # recomputed from the files, not read from the manifest
    assert hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest() == MANIFEST
