"""Named seed streams: every random generator of a run takes its seed from the run's seed here, by name.

A run's one seed fans out to many generators: the neural EM's restarts and samples, each channel's
random start and batches, auto's decoys, null words, syllable search starts, fit and reverse
channel. Each is a named stream with an offset and a stride per index (a restart, an attempt, a
refinement, a draw ...), so two streams do not reuse one seed by accident and a new one is a line
here. The offsets are the ones the code used before the streams had names: a seed draws the run it
always drew, and a stored run replays exactly.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Stream:
    """A stream's seed: run seed + offset + sum of stride x index over its indices."""

    offset: int
    strides: tuple[int, ...] = ()
    what: str = ""


STREAMS: dict[str, Stream] = {
    # The neural EM (engine/methods/neural_em/), per restart; a refinement's draws (1 apart) and
    # refinements (7919 apart) each draw other batches and samples.
    "neural rounds": Stream(0, (1000, 1), "a restart's model, dropout and batches (restart, draw)"),
    "neural samples": Stream(7, (1000, 1, 7919), "a restart's flow samples (restart, draw, refinement)"),
    # Character channels (engine/channels/trainer.py): a fresh channel's start and its batches.
    "channel start": Stream(11, (1000, 101), "a channel's random start and batches (restart, attempt)"),
    "channel refinement": Stream(0, (7919, 1), "a refinement's batches (refinement, draw)"),
    # auto (engine/methods/auto/).
    "auto fit": Stream(13, (), "the fit's batches"),
    "auto decoys": Stream(17, (61,), "decoy words of the known language (lexicon, 0: the first)"),
    "auto own cognates": Stream(19, (47,), "words the probe's channel writes from known words (split, 0: the probe's)"),
    "syllable starts": Stream(23, (31,), "the syllable search's random maps (start)"),
    "auto reverse": Stream(29, (), "the reverse channel's start and batches"),
    "auto null words": Stream(31, (53,), "lost-like words without a cognate (split, 0: the probe's)"),
    "auto calibration": Stream(37, (59,), "the calibration pass's batches (split, 0: the probe's)"),
    "held or free fold": Stream(41, (43,), "a held or free probe's batches on another split (split)"),
    "auto cross": Stream(43, (), "the cross channel's start and batches (trained on the probe's held-out words)"),
    # Within a stream (its seed, not the run's): a probe search's fresh starts, null words' passes.
    "probe search start": Stream(7, (7,), "a probe search's start (k: start k + 1)"),
    "null word pass": Stream(0, (1, 101), "a pass of the null words' draws (pass, model: 0 trigrams ...)"),
}


def derive(seed: int, stream: str, *index: int) -> int:
    """The seed of `stream` (a STREAMS name) for `seed` at `index` (missing trailing indices are 0)."""
    spec = STREAMS[stream]
    if len(index) > len(spec.strides):
        raise ValueError(f"seed stream {stream!r} takes {len(spec.strides)} index(es), got {len(index)}")
    return seed + spec.offset + sum(s * i for s, i in zip(spec.strides, index, strict=False))
