"""Named seed streams (engine/run/seeds.py): the seeds the code drew before the streams had names."""

from __future__ import annotations

import pytest

from tui_decipher.engine.run.seeds import STREAMS, derive


def test_streams_draw_the_seeds_of_their_old_offsets() -> None:
    # Stored runs and checkpoints replay only if a seed draws what it drew before the names.
    seed = 1234
    assert derive(seed, "neural rounds", 2) == seed + 1000 * 2
    assert derive(seed, "neural rounds", 2, 3) == seed + 1000 * 2 + 3
    assert derive(seed, "neural samples", 2) == seed + 1000 * 2 + 7
    assert derive(seed, "neural samples", 2, 3, 4) == seed + 1000 * 2 + 3 + 7 + 7919 * 4
    assert derive(seed, "channel start", 1, 2) == seed + 1000 * 1 + 11 + 101 * 2
    assert derive(seed, "channel refinement", 2, 1) == seed + 7919 * 2 + 1
    assert derive(seed, "auto fit") == seed + 13
    assert derive(seed, "auto decoys") == seed + 17  # the first lexicon: the one a run read before there were eight
    assert derive(seed, "auto own cognates") == seed + 19
    assert [derive(seed, "syllable starts", k) for k in range(3)] == [seed + 23 + 31 * k for k in range(3)]
    assert derive(seed, "auto reverse") == seed + 29
    assert derive(seed, "auto null words") == seed + 31
    assert derive(seed, "probe search start", 1) == seed + 7 * 2


def test_an_auto_runs_streams_do_not_share_a_seed() -> None:
    # Every generator one auto run seeds from the run's seed: its probes' starts (2 attempts), the
    # syllable search's 20 starts, the fit, the reverse channel, decoys, own cognates, null words,
    # the calibration pass; the decoys' eight lexicons.
    used = [("channel start", (0, a)) for a in range(2)] + [("syllable starts", (k,)) for k in range(20)]
    used += [("auto decoys", (k,)) for k in range(1, 8)]
    used += [(name, ()) for name in ("auto fit", "auto reverse", "auto decoys", "auto own cognates",
                                     "auto null words", "auto calibration")]  # fmt: skip
    drawn: dict[int, str] = {}
    for name, index in used:
        seed = derive(0, name, *index)
        assert drawn.setdefault(seed, name) == name, f"{name} {index} draws {drawn[seed]}'s seed {seed}"
    assert len(drawn) == len(used)
    assert set(STREAMS) >= {name for name, _ in used}


def test_a_stream_refuses_indices_it_does_not_have() -> None:
    with pytest.raises(ValueError, match="auto fit"):
        derive(1, "auto fit", 1)
    with pytest.raises(KeyError):
        derive(1, "no such stream")
