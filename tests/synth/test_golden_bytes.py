"""Pinned bytes of one small Meridian world: a refactor of the generator must leave every file as it was.

Regenerated on purpose only with a new generator version (``manifest.json``'s ``generator_version``): then every
docs figure that depends on the bytes is re-measured and these hashes are replaced in the same change."""

from __future__ import annotations

import hashlib

from hcrbench.synth import generate_meridian

#: ``generate_meridian(out, "small", seed=5, n_queries=60, grow=False)`` under generator 4.3.0.
VERSION = "4.3.0"
FILES = {
    "corpus.jsonl": "7412974c066c7df25d035dc20a654c8d3ca6449a67fead204a8ace3f6f909755",
    "evidence.jsonl": "36cc914f8761ad3019950b89d4beda58ff6541da8da2ebe571bcad07c7b1bc62",
    "provenance.jsonl": "17d3bc84fa82367c38259b15c5f02104df3a801251f6d9fed1b3f457304e8fd3",
    "qrels-topical/dev.tsv": "09fa5d6911143249839e0ae24072656909e83234237dde9f4fe7c39e3eb454cc",
    "qrels-topical/test.tsv": "dd365ba0198755860302aed4d2936a04f651b109abba8bab845a6e39b46d5b63",
    "qrels-topical/tune.tsv": "1380c9a626581046edd254e3f2211f8583c65b9df7e07d69ce63c5bade04b989",
    "qrels/dev.tsv": "0f78c51a663ad6dd9c7adc21310c1905cdece26a2889108d7bde8af8484fd58f",
    "qrels/test.tsv": "24ec553d692ca3e915544c4cff878713624b4b11b4c0acb8c3f691b5bce7e004",
    "qrels/tune.tsv": "b4c23c95c64dae7ab9506a2f4abafc62149636e70a1a764590c58b12309bdaa6",
    "queries.jsonl": "41be50658d46be12d0d210aac02dfd336d9a07ab8c5825e5f5db4b95bc86a578",
    "queries.meta.jsonl": "fd2993ac0ab39e8ec58d23259e8eb4aef529033d63a3334cd438e3697eab0936",
    "world.json": "826a8314cca4e537c894637b4cc7e94956b1184d3ca51fb4735e384e19b69471",
}
MANIFEST = "d08b50ce770f9bf0a540789d92616b9e31a8bc646392ecd8392c213a06ad055e"


def test_a_small_world_at_seed_5_has_the_pinned_bytes(tmp_path):
    out = tmp_path / "golden"
    man = generate_meridian(out, "small", seed=5, n_queries=60, grow=False)
    if man["generator_version"] != VERSION:  # a deliberate new version: re-pin with the docs figures
        raise AssertionError(f"generator {man['generator_version']}: re-pin {__name__} (pinned under {VERSION})")
    got = {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in sorted(FILES)}
    assert got == FILES  # recomputed from the files, not read from the manifest
    assert hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest() == MANIFEST
