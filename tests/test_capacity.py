"""engine/methods/auto/capacity.py: C read from a channel's confident readings, on costs whose answer is known."""

from __future__ import annotations

import numpy as np

from tui_decipher.engine.methods.auto.capacity import MAX_CAPACITY, _best_and_margin, estimate_capacity


def _costs(n_known: int, owners: list[int], seed: int = 0, wrong: float = 0.0) -> np.ndarray:
    """Costs (len(owners), n_known) of a channel that reads lost word i as known word owners[i]
    with a clear margin, a share `wrong` of them as a random known word instead."""
    rng = np.random.default_rng(seed)
    cost = rng.uniform(10.0, 12.0, size=(len(owners), n_known))
    for i, j in enumerate(owners):
        if rng.random() < wrong:
            j = int(rng.integers(n_known))
        cost[i, j] = rng.uniform(2.0, 6.0)
    return cost


def test_one_to_one_readings_keep_c_one() -> None:
    owners = list(np.random.default_rng(1).permutation(300)[:200])
    est = estimate_capacity(_costs(300, owners, wrong=0.02), demand=200, n_known=300)
    assert est.capacity == 1 and est.shared_share < 0.04 and est.n_confident == 100
    assert "one-to-one" in est.why


def test_shared_known_words_raise_c() -> None:
    # 150 known words; 50 of them read by two lost words each (inflected forms), 100 by one.
    owners = [*range(150), *range(50)]
    est = estimate_capacity(_costs(150, owners), demand=200, n_known=150)
    assert est.capacity == 2 and est.max_claims == 2 and est.shared_share > 0.2


def test_on_a_syllabary_only_a_word_and_a_longer_form_of_it_count_as_sharing() -> None:
    # 150 known words; 50 of them read by two lost words each. Where the second reader is the
    # first with a sign added (an ending), C = 2; where it is another word, C stays 1.
    owners = [*range(150), *range(50)]
    stems = [("s", f"{i}") for i in range(150)]
    forms = [*stems, *[(*stems[j], "e") for j in range(50)]]
    others = [*stems, *[("o", f"{j}") for j in range(50)]]
    cost = _costs(150, owners)
    plain = estimate_capacity(cost, demand=150, n_known=150)
    inflected = estimate_capacity(cost, demand=150, n_known=150, forms_of=forms)
    chance = estimate_capacity(cost, demand=150, n_known=150, forms_of=others)
    assert plain.capacity == inflected.capacity == 2 and inflected.shared == plain.shared
    assert "longer or shorter form" in inflected.why and inflected.collisions == plain.shared
    assert chance.capacity == 1 and chance.shared == 0 and chance.collisions == plain.shared
    assert chance.why.startswith("one-to-one") and f"({100 * plain.shared_share:.0f}% with any other)" in chance.why
    assert plain.collisions is None and "collisions" not in plain.as_dict() and "collisions" in chance.as_dict()
    # A word that only shares its first sign with the other, or equals it, is not a longer form.
    near = [*stems, *[(stems[j][0], "x") for j in range(50)]]
    assert estimate_capacity(cost, demand=150, n_known=150, forms_of=near).capacity == 1


def test_c_is_capped_and_never_below_what_d_needs() -> None:
    many = estimate_capacity(_costs(20, [i % 5 for i in range(100)]), demand=40, n_known=20)
    assert many.capacity == MAX_CAPACITY and many.max_claims > MAX_CAPACITY and many.most_demand == 40
    # Pairs of lost words share known words (C = 2 read), and D = 100 onto 40 known words needs 3.
    pairs = estimate_capacity(_costs(40, [i % 40 for i in range(80)]), demand=100, n_known=40)
    assert pairs.max_claims == 2 and pairs.capacity == 3 and pairs.most_demand == 100


def test_one_to_one_readings_keep_d_to_the_known_list_rather_than_raise_c() -> None:
    # D = 100 estimated onto 40 known words, but the readings are one-to-one: D gives way.
    one = estimate_capacity(_costs(40, list(range(40))), demand=100, n_known=40)
    assert one.capacity == 1 and one.most_demand == 40 and one.as_dict()["demand"] == 40
    assert one.why.startswith("one-to-one") and one.why.endswith("D kept to the 40 known words (from 100)")
    # Within the known list, D is kept as asked.
    within = estimate_capacity(_costs(40, list(range(30))), demand=30, n_known=40)
    assert within.capacity == 1 and within.most_demand == 30 and "D kept" not in within.why


def test_too_few_words() -> None:
    assert estimate_capacity(np.zeros((1, 5)), demand=1, n_known=5).capacity == 1


def test_best_readings_and_margins_are_the_same_read_in_row_chunks() -> None:
    cost = _costs(40, list(range(30)), seed=3).astype(np.float32)  # float32, as channels' costs are
    best, margin = _best_and_margin(cost, chunk_elements=1 << 30)  # one chunk
    chunked_best, chunked_margin = _best_and_margin(cost, chunk_elements=100)  # two rows at a time
    ordered = np.sort(cost, axis=1)
    assert np.array_equal(best, cost.argmin(1)) and np.allclose(margin, ordered[:, 1] - ordered[:, 0])
    assert np.array_equal(chunked_best, best) and np.array_equal(chunked_margin, margin)
