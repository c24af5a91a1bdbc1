"""Pinned bytes of one small Meridian world: a refactor of the generator must leave every file as it was.

Regenerated on purpose only with a new generator version (``manifest.json``'s ``generator_version``): then every
docs figure that depends on the bytes is re-measured and these hashes are replaced in the same change."""

from __future__ import annotations

import hashlib

from hcrbench.synth import generate_meridian

#: ``generate_meridian(out, "small", seed=5, n_queries=60, grow=False)`` under generator 5.2.0. Re-pinned from
#: 5.1.0 because pages now end, now and then, with passing mentions ("See also: ...", "Last edited by ...") of
#: entities of their own team (synth/mentions.py): corpus.jsonl changes, and so do the judged negatives (a page
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
    "corpus.jsonl": "d4e1f48d98df701fcd6591df671fe4297c95566ba5f59f04c5863096c62744c0",
    "evidence.jsonl": "ae7e416a8b8527f3f3aca6dff6ef89ae68aecdbf32380fb82939c1775a888be7",
    "provenance.jsonl": "7043ac4f2fe061711c156788e967a06f7ed863177af201b255f1c85095f91208",
    "qrels-topical/dev.tsv": "4c0254d4132feac2404b4b170e999904c1ab5de08cadd08e9c5d30741877a200",
    "qrels-topical/test.tsv": "c852a954ed2df6207d1a75e3d53f79f936f0a5ff760d2ad119950e6bbf517ae7",
    "qrels-topical/tune.tsv": "1c69c27e992b846ea834ec92d2b0c1593bdcaeb3e1108211ccf4cbcce34ef49c",
    "qrels/dev.tsv": "fa6483cfb8e243506acceb1059d798e661c0d4100b955d35a43daf7110c85fb9",
    "qrels/test.tsv": "4c9db429da7d8feedfc7bd13f3cb90a22753ae8b66131aa4fb8d4f3b686100a8",
    "qrels/tune.tsv": "0ae6977ba1f410cee7f6b39d8e07fcb0a04d062fd83ba71b86079fac186af45d",
    "queries.jsonl": "4b6f3028439247806647922558d3ff631115259f53923edd82dbc064c1be521c",
    "queries.meta.jsonl": "c668b62767d3cfeba4eb268776e63efc1d9ddb8949cbd11de0ea90e8506dc50a",
    "world.json": "80c0c615b913997333ff11e21aa170bf4ca1c247167f14dff2cdab0feebbe6f4",
}
MANIFEST = "1d7da49300ad7bc41aab902e4e9271da05cb9fb2659375dfa263891492d81e9a"


def test_a_small_world_at_seed_5_has_the_pinned_bytes(tmp_path):
    out = tmp_path / "golden"
    man = generate_meridian(out, "small", seed=5, n_queries=60, grow=False)
    if man["generator_version"] != VERSION:  # a deliberate new version: re-pin with the docs figures
        raise AssertionError(f"generator {man['generator_version']}: re-pin {__name__} (pinned under {VERSION})")
    got = {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in sorted(FILES)}
    assert got == FILES  # recomputed from the files, not read from the manifest
    assert hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest() == MANIFEST
