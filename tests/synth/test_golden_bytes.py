"""Pinned bytes of one small Meridian world: a refactor of the generator must leave every file as it was.

Regenerated on purpose only with a new generator version (``manifest.json``'s ``generator_version``): then every
docs figure that depends on the bytes is re-measured and these hashes are replaced in the same change."""

from __future__ import annotations

import hashlib

from hcrbench.synth import generate_meridian

#: ``generate_meridian(out, "small", seed=5, n_queries=60, grow=False)`` under generator 5.0.0-dev.
#: Re-pinned for 5.0.0-dev because the year's events moved (decisions and meetings spread over the months with
#: day-numbered decisions, incidents on systems by their load, severities in a realistic mix) and every file
#: follows from the world and its text.
VERSION = "5.0.0-dev"
FILES = {
    "corpus.jsonl": "7f8492d01d75968cef805eb156980a3d75ed085e2811d8f74c774a2eb91cf937",
    "evidence.jsonl": "f6af7fbe2a6173fabd3bd995efe88486c292c1959cc6c85a33520254b17bff13",
    "provenance.jsonl": "b7c6c1da5c69fa3200593e3313215429b0f4a25952b109b87c83d49159b7b132",
    "qrels-topical/dev.tsv": "4b23295ecf4150d6aa82a3b38c54da8963d82633771f8c071972a63d5fba80aa",
    "qrels-topical/test.tsv": "d638e7168bf9f3faefa4107439d3c0a84bd3ccd55b7e89ef5d1d30a937b658ee",
    "qrels-topical/tune.tsv": "53b60fc51bc2d5ae5e32be74358a8edeba779959d5c7c4a7a5bcd327cb4fd5d8",
    "qrels/dev.tsv": "f7f27454a3399cf638fe0d1f6b0ca4fe3af55dbf2933b86dbc3d68081117d1b4",
    "qrels/test.tsv": "7356355559d74cc8326d9a64e4526f465fb58940add1210026def5b292ecdcba",
    "qrels/tune.tsv": "dbdf9d4b2ae3ff929197bbc1495ea8ed2d099e5e2e6dff2f84fc7a979229a727",
    "queries.jsonl": "3441931db859acaad6da3294db318946a28f7ba463e94f645c857fe6be75f813",
    "queries.meta.jsonl": "5066de0bd0ed593744297ebf23ac5ed383107f6c98f5e8b4d155441e460ea9a2",
    "world.json": "4c1cd964349a4fdec2a6208eed408a9110b13893266e3f766e2fcc8db265591d",
}
MANIFEST = "615ee59937181e6dda2a6fd65bac52b19f571653474c82032b7efeb4015558df"


def test_a_small_world_at_seed_5_has_the_pinned_bytes(tmp_path):
    out = tmp_path / "golden"
    man = generate_meridian(out, "small", seed=5, n_queries=60, grow=False)
    if man["generator_version"] != VERSION:  # a deliberate new version: re-pin with the docs figures
        raise AssertionError(f"generator {man['generator_version']}: re-pin {__name__} (pinned under {VERSION})")
    got = {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in sorted(FILES)}
    assert got == FILES  # recomputed from the files, not read from the manifest
    assert hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest() == MANIFEST
