"""Pinned bytes of one small Meridian world: a refactor of the generator must leave every file as it was.

Regenerated on purpose only with a new generator version (``manifest.json``'s ``generator_version``): then every
docs figure that depends on the bytes is re-measured and these hashes are replaced in the same change."""

from __future__ import annotations

import hashlib

from hcrbench.synth import generate_meridian

#: ``generate_meridian(out, "small", seed=5, n_queries=60, grow=False)`` under generator 5.2.0. Re-pinned from
#: 5.1.0 because pages now end, now and then, with passing mentions ("See also: ...", "Last edited by ...") of
#: entities of their own team (synth/corpus/mentions.py): corpus.jsonl changes, and so do the judged negatives (a page
#: whose text names a query entity is never judged; qrels/, queries.meta.jsonl); world, provenance, queries,
#: evidence and qrels-topical are unchanged. From 5.0.0 to 5.1.0: documents came in kinds (chat threads for some
#: incidents, mail threads for some decisions and announcements, minutes for some meetings, how-tos and long specifications for some systems, superseded copies of
#: older policy versions in four announcement slots), carry ``metadata.kind``, and now and then end with a footer or
#: hold a typo; and the queries are worded as a person would (an incident, a decision, a meeting its notes number or
#: a policy named by what it is rather than its identifier, other phrasings of an intent, now and then a greeting or
#: a thanks) and an incident fan-out asks about one system's or one team's incidents. The world (world.json) is
#: unchanged; every other file changes.
VERSION = "5.2.0"
FILES = {
    "corpus.jsonl": "aa339661075ab3bdc3de3c58cf4e5acc2bd856037534459ee610074bede74dae",
    "evidence.jsonl": "ae7e416a8b8527f3f3aca6dff6ef89ae68aecdbf32380fb82939c1775a888be7",
    "provenance.jsonl": "7043ac4f2fe061711c156788e967a06f7ed863177af201b255f1c85095f91208",
    "qrels-topical/dev.tsv": "fa3ee863451ca54ce7f769602b300d0b534efd9e0937a0e0199f72c4b0f2f306",
    "qrels-topical/test.tsv": "890bc1ba9ce6143eb87fdfcd7631799767cf54ceb44746626f049ea156e99e9b",
    "qrels-topical/tune.tsv": "395108f546a4a29f8b510dc89155218a6988770569345e7da5b629cd44a25a74",
    "qrels/dev.tsv": "e9efb92203837fa7ee53bba43eb0fab94fda957d5820b791a00bfe88e069fba6",
    "qrels/test.tsv": "07b9d3f4752d467477692a8fec4cdd4a9711f0532db8a2576e782e1fb64e02fe",
    "qrels/tune.tsv": "4403fdcc1c0b93694e7f59dd1ea21be7143c2962c13b6ad8652848b9badbd17e",
    "queries.jsonl": "4b6f3028439247806647922558d3ff631115259f53923edd82dbc064c1be521c",
    "queries.meta.jsonl": "f545e28a7420afbe4ab0d2db01c0f0826f5fa3b5d8c28d05fbdc287b19faac81",
    "world.json": "80c0c615b913997333ff11e21aa170bf4ca1c247167f14dff2cdab0feebbe6f4",
}
MANIFEST = "ca882020fa49949d65bc0377e5eb7af0fb277da287603c997003627522e5e199"


def test_a_small_world_at_seed_5_has_the_pinned_bytes(tmp_path):
    out = tmp_path / "golden"
    man = generate_meridian(out, "small", seed=5, n_queries=60, grow=False)
    if man["generator_version"] != VERSION:  # a deliberate new version: re-pin with the docs figures
        raise AssertionError(f"generator {man['generator_version']}: re-pin {__name__} (pinned under {VERSION})")
    got = {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in sorted(FILES)}
    assert got == FILES  # recomputed from the files, not read from the manifest
    assert hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest() == MANIFEST
