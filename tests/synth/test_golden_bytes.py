"""Pinned bytes of one small Meridian world: a refactor of the generator must leave every file as it was.

Regenerated on purpose only with a new generator version (``manifest.json``'s ``generator_version``): then every
docs figure that depends on the bytes is re-measured and these hashes are replaced in the same change."""

from __future__ import annotations

import hashlib

from hcrbench.synth import generate_meridian

#: ``generate_meridian(out, "small", seed=5, n_queries=60, grow=False)`` under generator 5.0.0-dev. Re-pinned from
#: 4.3.0 because the notes of a meeting held on a day an earlier meeting was held now write its id (corpus,
#: provenance spans, evidence), a question names a meeting by its kind and date, or by its id where the notes write
#: it (queries, queries.meta), and a page stating a needed fact in passing is graded 2, below the pages about it
#: (qrels, qrels-topical, queries.meta); the world is unchanged (world.json keeps its 4.3.0 hash).
VERSION = "5.0.0-dev"
FILES = {
    "corpus.jsonl": "c5b88df6e517280a98941f700e726b257839c0e5f52a2727ac1e2352bcfb836a",
    "evidence.jsonl": "c71ddb66bdb5755b6f5651d1d2549e00969b13a12c6585d394b07404adec7f3c",
    "provenance.jsonl": "eb4681c1a2126d40be13f63316175ad981da63e819e921bdad63f5450b80708c",
    "qrels-topical/dev.tsv": "9341b65afa20df574e417361dde9de0c0ff0f492ec2818c60a525294e04747dd",
    "qrels-topical/test.tsv": "5036f4d8ed5a14fa38f6c15ec3797c1fcf592e425237bcbf6f6b9ce47d3d0e49",
    "qrels-topical/tune.tsv": "1cba13274527949f184e4ca76d0d5d40ccb717f21db2654d006572b0492f0164",
    "qrels/dev.tsv": "62ca32b45b43c79b6a8a201e93481071528ab09ca0c375ac1d4f88234dc1fc98",
    "qrels/test.tsv": "4e3c79c61324bd9b21a2984a38032c2f83dba42f72b526b5a45493a60109885d",
    "qrels/tune.tsv": "55f07e93296c4b0fd57b3be9325ad0ec321971fc15125158507ffb1d03bb3ed9",
    "queries.jsonl": "e90e3fbc5d9ff798e1f41919665be7940967a316a4f11c3949a5c0ae8ad01da8",
    "queries.meta.jsonl": "845e758b8a22650797b0879ca900720b3919fcc644b967125a2d5c31d94b3265",
    "world.json": "826a8314cca4e537c894637b4cc7e94956b1184d3ca51fb4735e384e19b69471",
}
MANIFEST = "5016b3b33dfbe5454a0f456778ecc90e5e6166005cd57577ee9a31e6b9f47fa8"


def test_a_small_world_at_seed_5_has_the_pinned_bytes(tmp_path):
    out = tmp_path / "golden"
    man = generate_meridian(out, "small", seed=5, n_queries=60, grow=False)
    if man["generator_version"] != VERSION:  # a deliberate new version: re-pin with the docs figures
        raise AssertionError(f"generator {man['generator_version']}: re-pin {__name__} (pinned under {VERSION})")
    got = {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in sorted(FILES)}
    assert got == FILES  # recomputed from the files, not read from the manifest
    assert hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest() == MANIFEST
