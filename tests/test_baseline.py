"""The edit-distance baseline (engine/evaluation/baseline.py): its own proposals, judged as a run's."""

from __future__ import annotations

from tui_decipher.engine.corpora.corpus import read_cog
from tui_decipher.engine.evaluation.baseline import edit_distance_proposals


def test_the_baselines_own_proposals_assign_every_lost_word_and_are_judged_as_a_runs(tmp_path) -> None:
    """Every lost word is assigned (min(n_lost, n_known) proposals, the baseline's own D), and its
    proposals are judged over every lost word with a gold cognate, as a run's are."""
    path = tmp_path / "c.cog"
    # Three cognates spelled alike, one lost word without a cognate, one unrelated known word.
    path.write_text("ll\tkk\nabc\tabc\nbca\tbca\ncab\tcab\nzzzz\t_\n_\tqqqq\n", encoding="utf-8")
    scores = edit_distance_proposals(read_cog(path))
    assert scores is not None
    assert (scores.n_proposals, scores.n_correct, scores.n_gold) == (4, 3, 3)  # zzzz takes qqqq: a wrong pair
    assert scores.recall == 1.0 and scores.precision == 0.75
