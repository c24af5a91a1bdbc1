"""Pinned bytes of one small Meridian world: a refactor of the generator must leave every file as it was.

Regenerated on purpose only with a new generator version (``manifest.json``'s ``generator_version``): then every
docs figure that depends on the bytes is re-measured and these hashes are replaced in the same change."""

from __future__ import annotations

import hashlib

from hcrbench.synth import generate_meridian

#: ``generate_meridian(out, "small", seed=5, n_queries=60, grow=False)`` under generator 5.0.0. Re-pinned from
#: 4.3.0 because (1) the notes of a meeting held on a day an earlier meeting was held now write its id, a question
#: names a meeting by its kind and date, or by its id where the notes write it, and a page stating a needed fact in
#: passing is graded 2, below the pages about it; (2) the year's events moved (decisions and meetings spread over
#: the months with day-numbered decisions, incidents on systems by their load, severities in a realistic mix),
#: staff draw on a larger pool of first names and body text keeps to its page's subject. Every file changes.
VERSION = "5.0.0"
FILES = {
    "corpus.jsonl": "14920cfe2aa497b875ce12e9c3a44cdad5d145b455fd42cff35fe36a99d34fb1",
    "evidence.jsonl": "34e427f1baf2783923539f44cae09d2bddab749743395663bed4f4d4480a4f0d",
    "provenance.jsonl": "2f079224d7ced0c6c96a16616087d0fc469ab1efb42795fcfb88b1ca1c838a29",
    "qrels-topical/dev.tsv": "b27742e7391ada6095580a3ca1bc5aaf53818b8944a963828abc7270adf31991",
    "qrels-topical/test.tsv": "bad7bc172435d1dca4db02972376b7fb90fce74d57c712c2e1748d70db4e77fc",
    "qrels-topical/tune.tsv": "4afc433aacb9677714d48e2625daf9c7982811e245294465bf64c6014a421ba6",
    "qrels/dev.tsv": "c653c2f116da7ef429aff0becbfea0891197453b0809dcdc3ddd5b88b52242ac",
    "qrels/test.tsv": "2704c23c6acf1c629fa6b04de534bb207ddbcd4a4611a0523162810524013308",
    "qrels/tune.tsv": "402fa1bd4d82921ea7886addb5a12b4437902d7f8bfe2709f55cf7f8bd5a00a3",
    "queries.jsonl": "e740959d20f12dc54367bdc14eec7f93f5eb2fb0b473ae9c45bd7650693d125e",
    "queries.meta.jsonl": "8bdabf1a1a0edca86d00affff8bc1e287060fc777076952c47d3e87a19d5f21e",
    "world.json": "80c0c615b913997333ff11e21aa170bf4ca1c247167f14dff2cdab0feebbe6f4",
}
MANIFEST = "421891c9d727059afa4c80d300a544ba91a6498329d0646e76db328a45395dc9"


def test_a_small_world_at_seed_5_has_the_pinned_bytes(tmp_path):
    out = tmp_path / "golden"
    man = generate_meridian(out, "small", seed=5, n_queries=60, grow=False)
    if man["generator_version"] != VERSION:  # a deliberate new version: re-pin with the docs figures
        raise AssertionError(f"generator {man['generator_version']}: re-pin {__name__} (pinned under {VERSION})")
    got = {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in sorted(FILES)}
    assert got == FILES  # recomputed from the files, not read from the manifest
    assert hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest() == MANIFEST
