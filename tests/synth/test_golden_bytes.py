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
#: Re-pinned from 5.0.0 for 5.1.0: the queries are worded as a person would (an incident, a decision, a meeting
#: its notes number or a policy named by what it is rather than its identifier, other phrasings of an intent, now
#: and then a greeting or a thanks) and an incident fan-out asks about one system's or one team's incidents. The
#: world, corpus and provenance keep their bytes; the queries, their evidence and the qrels of the queries drawn
#: differently change.
VERSION = "5.1.0"
FILES = {
    "corpus.jsonl": "14920cfe2aa497b875ce12e9c3a44cdad5d145b455fd42cff35fe36a99d34fb1",
    "evidence.jsonl": "dd273f85caf771e4bef4ab5d7f6a616841cc2a720f455f5aea26d66041ed6a59",
    "provenance.jsonl": "2f079224d7ced0c6c96a16616087d0fc469ab1efb42795fcfb88b1ca1c838a29",
    "qrels-topical/dev.tsv": "b27742e7391ada6095580a3ca1bc5aaf53818b8944a963828abc7270adf31991",
    "qrels-topical/test.tsv": "83b74ba4f5fa187991ee130da03f05bca64acb95f53e1fd59cdc5cbfb98cc8f6",
    "qrels-topical/tune.tsv": "ba5961b46e905b980b9404c6469420c88a88eefcdbeb41e45f45081c946aa415",
    "qrels/dev.tsv": "c653c2f116da7ef429aff0becbfea0891197453b0809dcdc3ddd5b88b52242ac",
    "qrels/test.tsv": "90b0043eed43be7f2a41cbaa803e3d4f91a13451093ff5d458b9e32bed52533f",
    "qrels/tune.tsv": "bdbf785761baa85d0f1044a6f6564ede2a8bdbf70358b886c656de80176a3cee",
    "queries.jsonl": "2be8fbf4f635778795bdba68c2a3bd8c1174dbe8c0d05e495a9aeb0b5179946e",
    "queries.meta.jsonl": "e278b554fad3d05c2c840fb825ede9ff4025622541663983f044d5852399d8e1",
    "world.json": "80c0c615b913997333ff11e21aa170bf4ca1c247167f14dff2cdab0feebbe6f4",
}
MANIFEST = "63f712d6f1878e1c9a249ee875584f39eab8f904774ce1297f835d438df1609b"


def test_a_small_world_at_seed_5_has_the_pinned_bytes(tmp_path):
    out = tmp_path / "golden"
    man = generate_meridian(out, "small", seed=5, n_queries=60, grow=False)
    if man["generator_version"] != VERSION:  # a deliberate new version: re-pin with the docs figures
        raise AssertionError(f"generator {man['generator_version']}: re-pin {__name__} (pinned under {VERSION})")
    got = {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in sorted(FILES)}
    assert got == FILES  # recomputed from the files, not read from the manifest
    assert hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest() == MANIFEST
