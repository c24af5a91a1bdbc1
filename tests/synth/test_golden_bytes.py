"""Pinned bytes of one small Meridian world: a refactor of the generator must leave every file as it was.

Regenerated on purpose only with a new generator version (``manifest.json``'s ``generator_version``): then every
docs figure that depends on the bytes is re-measured and these hashes are replaced in the same change."""

from __future__ import annotations

import hashlib

from hcrbench.synth import generate_meridian

#: ``generate_meridian(out, "small", seed=5, n_queries=60, grow=False)`` under generator 5.1.0. Re-pinned for 5.0.0 from
#: 4.3.0 because (1) the notes of a meeting held on a day an earlier meeting was held now write its id, a question
#: names a meeting by its kind and date, or by its id where the notes write it, and a page stating a needed fact in
#: passing is graded 2, below the pages about it; (2) the year's events moved (decisions and meetings spread over
#: the months with day-numbered decisions, incidents on systems by their load, severities in a realistic mix),
#: staff draw on a larger pool of first names and body text keeps to its page's subject. Every file changes.
#: Re-pinned from 5.0.0 for 5.1.0: the queries are worded as a person would (an incident, a decision or a policy
#: named by what it is rather than its identifier, other phrasings of an intent, now and then a greeting or a
#: thanks) and an incident fan-out asks about one system's or one team's incidents. The world, corpus and
#: provenance keep their bytes; the queries, their evidence and the qrels of the queries drawn differently change.
VERSION = "5.1.0"
FILES = {
    "corpus.jsonl": "14920cfe2aa497b875ce12e9c3a44cdad5d145b455fd42cff35fe36a99d34fb1",
    "evidence.jsonl": "800c5fa722ac6cfed56ea78cb878e2b2dcda39d55ffeb9efc3361c9103b24c6f",
    "provenance.jsonl": "2f079224d7ced0c6c96a16616087d0fc469ab1efb42795fcfb88b1ca1c838a29",
    "qrels-topical/dev.tsv": "b27742e7391ada6095580a3ca1bc5aaf53818b8944a963828abc7270adf31991",
    "qrels-topical/test.tsv": "a6fe3aedf50028d3eb06a8248f4dd185bc3d7cfb12d04d82bcaf4a30f2fbfece",
    "qrels-topical/tune.tsv": "b5ba541452f8811c96590950c714a1350dea37843d70f2b57b0943d25b844472",
    "qrels/dev.tsv": "c653c2f116da7ef429aff0becbfea0891197453b0809dcdc3ddd5b88b52242ac",
    "qrels/test.tsv": "19405393567fd125495c9ca920e839c726d3bfc022d683e70777abfe117802d9",
    "qrels/tune.tsv": "31bda3c659603bf957abd03fa0650b30dad46fc98f8c4f5dd8f76c093e7e8c2c",
    "queries.jsonl": "11533a0ee25886c995efb425867e35cd0c4afb5c748cd2a770ff4351903f4556",
    "queries.meta.jsonl": "aff8217fe6beb2d23d3f1e019a54536fb62298796e1362549b2b9f651f353f94",
    "world.json": "80c0c615b913997333ff11e21aa170bf4ca1c247167f14dff2cdab0feebbe6f4",
}
MANIFEST = "e43e8677e5dc00bade32ec5ae563cea29434de0223d67dced8ee24aca73ec777"


def test_a_small_world_at_seed_5_has_the_pinned_bytes(tmp_path):
    out = tmp_path / "golden"
    man = generate_meridian(out, "small", seed=5, n_queries=60, grow=False)
    if man["generator_version"] != VERSION:  # a deliberate new version: re-pin with the docs figures
        raise AssertionError(f"generator {man['generator_version']}: re-pin {__name__} (pinned under {VERSION})")
    got = {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in sorted(FILES)}
    assert got == FILES  # recomputed from the files, not read from the manifest
    assert hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest() == MANIFEST
