"""An undecided row judged over worlds says how many test worlds would decide it, and that figure delivers the
power it promises: sized by a t on worlds - 1 df (the interval over worlds is the one-sample t of the worlds'
means), on a world sd floored by the queries' own sampling (two worlds measure the worlds' spread on one df).
Small Monte-Carlo checks on simulated worlds with a known sd; the old sizing (per-query sd, queries' df) is shown
to fall short on the same draws, so the checks can fail."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from hcrbench.protocol import batches
from hcrbench.protocol import registry as reg
from hcrbench.protocol.row import Row
from hcrbench.protocol.ruleset.kill import single_kill
from hcrbench.stats.cluster import cluster_ci
from hcrbench.stats.power import paired_power

MARGIN = reg.get("kill").margin


def _world_t_decides(means: np.ndarray) -> np.ndarray:
    """Rows of world means whose 95% one-sample t interval lies wholly above 0 (the kill rule's go)."""
    w = means.shape[1]
    lo = means.mean(axis=1) - stats.t.ppf(0.975, w - 1) * means.std(axis=1, ddof=1) / math.sqrt(w)
    return lo > 0


def test_the_worlds_printed_give_power_0_8_on_normal_worlds_with_a_known_sd():
    rng = np.random.default_rng(7)
    reps = 4000
    for sd_w in (0.012, 0.02, 0.035):
        w = reg.worlds_for_power(sd_w, MARGIN)
        assert w is not None and paired_power(MARGIN, sd_w, w) >= 0.8 > (paired_power(MARGIN, sd_w, w - 1)
                                                                          if w > 2 else 0.0)
        rate = _world_t_decides(rng.normal(MARGIN, sd_w, size=(reps, w))).mean()
        se = math.sqrt(0.8 * 0.2 / reps)
        assert rate >= 0.8 - 3 * se, (sd_w, w, rate)
        assert abs(rate - paired_power(MARGIN, sd_w, w)) < 3.5 * se  # the figure is the power it delivers
        # the old figure: the same sd per query (60 queries a world), the noncentral t on the queries' df
        q = 60
        old = math.ceil(reg.n_for_power(sd_w * math.sqrt(q), MARGIN) / q)
        assert old <= w
        if old < w:
            assert _world_t_decides(rng.normal(MARGIN, sd_w, size=(reps, old))).mean() < 0.8 - 3 * se


def _worlds(rng, reps: int, worlds: int, q: int, topics: int, sd_topic: float, sd_query: float, truth: float):
    """Per-query differences of ``worlds`` worlds x ``q`` queries in ``topics`` topics each (topic effects nested
    in worlds, no world effect), and their topic ids."""
    t_ids = np.repeat(np.arange(worlds * topics), q // topics)
    d = truth + rng.normal(0, sd_topic, size=(reps, worlds * topics))[:, t_ids] \
        + rng.normal(0, sd_query, size=(reps, worlds * q))
    return d, t_ids


def test_an_undecided_draw_judged_again_at_its_printed_worlds_decides_at_least_80_percent():
    # what docs/protocol.md's calibration checks, on simulated worlds: each draw undecided after two worlds, at a
    # truth a margin past the kill threshold, judged again (its own first worlds kept) at the worlds it printed
    rng = np.random.default_rng(11)
    q, topics, reps, slots = 60, 20, 400, 40
    d, t_ids = _worlds(rng, reps, slots, q, topics, 0.03, 0.15, MARGIN)
    first = 2 * q
    w_of = np.arange(slots * q) // q
    need, old, fresh = [], [], []
    for r in range(reps):
        cl = cluster_ci(d[r, :first], None, t_ids[:first], worlds=w_of[:first])
        if cl.low > 0 or cl.high < 0:
            continue  # decided at two worlds
        wsd = reg.world_sd(cl.se, cl.topic_se, cl.n_worlds)
        assert wsd >= max(cl.se, cl.topic_se) * math.sqrt(2) * (1 - 1e-12)
        need.append(reg.get("kill").worlds_needed(wsd))
        # the figure before: the worlds' standard error x sqrt(n) per query, the noncentral t on n - 1 df
        old.append(math.ceil((reg.n_for_power(cl.se * math.sqrt(first), MARGIN) or 0) / q))
        fresh.append(r)

    def decided_at(worlds: np.ndarray) -> tuple[float, int]:
        fits = (worlds > 2) & (worlds <= slots)
        right = sum(cluster_ci(d[r, :w * q], None, t_ids[:w * q], worlds=w_of[:w * q]).low > 0
                    for r, w in zip(np.array(fresh)[fits], worlds[fits]))
        return right / max(fits.sum(), 1), int(fits.sum())

    rate, m = decided_at(np.array(need))
    assert m > 0.9 * len(fresh)
    assert rate >= 0.8 - 3 * math.sqrt(0.16 / m), rate
    was, m_old = decided_at(np.array(old))
    assert was < 0.8 - 3 * math.sqrt(0.16 / m_old), was  # the check can fail: the old figure does


def test_the_kill_row_sizes_in_worlds_and_the_run_prices_that_figure():
    n, worlds, wsd = 570, 2, 0.03
    se = wsd / math.sqrt(worlds)
    t1 = stats.t.ppf(0.975, 1)
    row = single_kill(0.005, 0.7, 0.005 - t1 * se, 0.005 + t1 * se, 0.05, n=n, full_size=True,
                      sd=se * math.sqrt(n), worlds=worlds, world_sd=wsd)
    und = row["undecided"]
    need_w = reg.worlds_for_power(wsd, MARGIN)
    assert und["needs_worlds"] == need_w > worlds and und["world_sd"] == wsd
    assert und["needs_n"] == math.ceil(need_w * n / worlds)
    assert f"needs ~ {und['needs_n']:,}" in row["text"]
    doc = {"checkpoints": [], "hypotheses": [row]}
    # the run's queries per world differ from the row's (another rule's queries): the row's own worlds stand
    batches.price_undecided(doc, test_worlds=worlds, queries_per_world=300.0, seconds_per_world=120.0)
    u = doc["hypotheses"][0]["undecided"]
    assert (u["needs_worlds"], u["more_worlds"], u["at_worlds"]) == (need_w, need_w - worlds, worlds)
    assert u["needs_minutes"] == round((need_w - worlds) * 120.0 / 60, 1)
    assert f"~{need_w - worlds} more test worlds ({need_w} in all)" in doc["hypotheses"][0]["text"]
    assert Row.of(doc["hypotheses"][0]).undecided.world_sd == wsd
    assert Row.of(doc["hypotheses"][0]).undecided.as_dict() == u


def test_the_world_sd_is_floored_by_the_queries_own_sampling():
    assert math.isclose(reg.world_sd(0.001, 0.01, 2), math.sqrt(2) * 0.01)
    assert math.isclose(reg.world_sd(0.02, 0.01, 3), math.sqrt(3) * 0.02)
    assert reg.world_sd(0.0, 0.0, 2) is None and reg.world_sd(0.01, 0.01, 0) is None


def test_what_the_floor_cannot_see_a_between_world_component_larger_than_the_queries_sampling():
    # world means: truth + a world effect (variance tau2) + the queries' sampling of the world's mean (within2,
    # which the topic-clustered se measures on many df); two worlds give the sum on 1 df. The figure holds its 80%
    # while tau2 <= within2 and falls short beyond, which docs/protocol.md says
    rng = np.random.default_rng(3)
    rule, within, reps, slots = reg.get("kill"), 0.016, 1000, 120
    memo: dict[float, int] = {}

    def rate(ratio: float) -> float:
        sig = within * math.sqrt(1 + ratio)
        wm = rng.normal(MARGIN, sig, size=(reps, slots))
        se = wm[:, :2].std(axis=1, ddof=1) / math.sqrt(2)
        half = stats.t.ppf(0.975, 1) * se
        und = np.abs(wm[:, :2].mean(axis=1)) <= half
        topic = within / math.sqrt(2) * np.sqrt(rng.chisquare(100, reps) / 100)
        hit = n = 0
        for r in np.flatnonzero(und):
            s = round(reg.world_sd(se[r], topic[r], 2), 5)
            w = memo.setdefault(s, rule.worlds_needed(s) or 0)
            if 2 < w <= slots:
                n += 1
                hit += bool(_world_t_decides(wm[r:r + 1, :w])[0])
        return hit / n

    se = math.sqrt(0.16 / reps)
    assert rate(0.0) >= 0.8 - 3 * se and rate(1.0) >= 0.8 - 3 * se
    assert rate(4.0) < 0.8 - 3 * se


def test_one_test_world_of_a_multi_world_dataset_is_sized_in_worlds_too():
    from types import SimpleNamespace

    from hcrbench.protocol.subject import one_world, query_worlds

    one = SimpleNamespace(query_ids=["w02-MQ001", "w02-MQ002", "w02-MQ003"])
    two = SimpleNamespace(query_ids=["w02-MQ001", "w03-MQ001"])
    plain = SimpleNamespace(query_ids=["MQ001", "MQ002"])
    assert one_world(one, one) and query_worlds(one, one) is None  # one world: the topic interval, sized in worlds
    assert not one_world(two, two) and query_worlds(two, two) is not None
    assert not one_world(plain, plain)  # a dataset of one world: sized in queries, more of its queries
    wsd = reg.world_sd(0.01, 0.01, 1)
    need, und = reg.undecided_worlds(reg.get("kill"), 285, wsd, 1)
    assert und["needs_worlds"] == reg.worlds_for_power(0.01, MARGIN) and need == und["needs_worlds"] * 285
