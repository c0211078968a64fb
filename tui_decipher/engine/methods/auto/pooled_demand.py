"""D read over every split's held-out words: where the first probe was also trained on other
splits of the lost words (pinned_folds.py: pinned to the syllable map and free, under a scholar's
values), each split's channel is calibrated as the kept probe's is (calibration.py) and D is read
from the scores of every split's held-out, own-cognate and null words together (`pooled_demand`).

Why: D / N = (p - q) / (r - q) (demand.py) rests on the held-out words, and a 200-word list's
probe holds out 40: the share's standard error is then about 0.3, some 60 words of 200
(docs/demand.md). The other splits' channels are trained anyway, to choose between held and
free; reading D on their held-out words too triples the words it rests on, for two calibration
passes and their scores.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ...channels.protocol import Channel
from ...channels.trainer import ChannelFit
from ...corpora.corpus import Word
from ...run.problem import Problem
from ...run.seeds import derive
from ..stages import StageMemo
from .calibration import calibrated
from .decoys import against_decoys, synthetic_cognates
from .demand import DemandEstimate, estimate_demand
from .pinned_folds import Fold
from .probe_words import ProbeWords, split_words
from .schedule import Schedule


@dataclass(frozen=True)
class SplitScores:
    """A channel's log P(x | y) of one split's words against the known words and the decoys: its
    held-out words (n_held, n_known) and (n_held, n_decoys), the channel's own cognates and the
    null words likewise (None where there are none), and the null words' and held-out words'
    distances from the split's training words ((n_null,), (n_held,); None: not measured)."""

    real: torch.Tensor
    fake: torch.Tensor
    own_real: torch.Tensor | None = None
    own_fake: torch.Tensor | None = None
    null_real: torch.Tensor | None = None
    null_fake: torch.Tensor | None = None
    null_distance: np.ndarray | None = None
    held_distance: np.ndarray | None = None

    def estimate(self) -> DemandEstimate:
        """D from these scores (`estimate_demand`)."""
        return estimate_demand(*dataclasses.astuple(self))

    @staticmethod
    def joined(parts: Sequence[SplitScores]) -> SplitScores:
        """Every split's words read as one split's: the rows of each part one after another; a part
        (own cognates, null words, distances) that some split lacks is left out of all."""
        out: dict[str, torch.Tensor | np.ndarray | None] = {}
        for field in dataclasses.fields(SplitScores):
            each = [getattr(p, field.name) for p in parts]
            if any(x is None for x in each):
                out[field.name] = None
            elif isinstance(each[0], torch.Tensor):
                out[field.name] = torch.cat(each)
            else:
                out[field.name] = np.concatenate(each)
        return SplitScores(**out)  # type: ignore[arg-type]


def split_scores(
    problem: Problem, channel: Channel, held_words: list[Word], decoys: list[Word], nulls: list[Word] | None = None,
    distances: tuple[np.ndarray, np.ndarray] | None = None, split: int = 0, cross: Channel | None = None,
) -> SplitScores:  # fmt: skip
    """`channel`'s scores of a split's held-out words, of as many own cognates (words it writes from
    known words: a cognate by construction, `synthetic_cognates`) and of `nulls` (words without a
    cognate), against the known words and the decoys. `split`: 0 the probe's, k another's. With
    `cross` (cross_channel.py), the own cognates are read by both channels, one row each."""
    cfg, corpus = problem.cfg, problem.corpus
    with problem.timer("score"):
        synthetic = synthetic_cognates(
            channel, corpus.known_words, problem.lost_charset, problem.known_charset, len(held_words),
            derive(cfg.seed, "auto own cognates", split),
        )  # fmt: skip
        real, fake = against_decoys(problem, channel, held_words, decoys)
        # A channel that drops every letter writes nothing to measure on; a list of a few words has no nulls.
        own = against_decoys(problem, channel, synthetic, decoys) if synthetic else (None, None)
        if cross is not None and own[0] is not None and own[1] is not None:
            crossed_real, crossed_fake = against_decoys(problem, cross, synthetic, decoys)
            own = (torch.cat([own[0], crossed_real]), torch.cat([own[1], crossed_fake]))
        null = against_decoys(problem, channel, nulls, decoys) if nulls else (None, None)
    return SplitScores(real, fake, *own, *null, *(distances or (None, None)))


def pooled_demand(
    problem: Problem, schedule: Schedule, words: ProbeWords, calibrated_channel: Channel, folds: Sequence[Fold],
    done: int, memo: StageMemo,
) -> tuple[DemandEstimate, int]:  # fmt: skip
    """D over the probe's split (read with its calibrated copy, `calibrated_channel`) and each of
    `folds` (each fold's channel calibrated the same way, on its own training words, with its own
    null words and own cognates), every split's scores read together (`SplitScores.joined`); and
    the steps run by then, after the `done` ones. Each calibration is a stage of `memo`."""
    parts = [split_scores(problem, calibrated_channel, words.held, words.decoys, words.nulls, words.distances)]
    for fold in folds:
        fw = split_words(problem, fold.train_rows, fold.held_rows, words.decoys, fold.split)
        seed = derive(problem.cfg.seed, "auto calibration", fold.split)

        def calibrate(fold: Fold = fold, fw: ProbeWords = fw, seed: int = seed, at: int = done) -> ChannelFit:
            # The fold's own estimate sets where its copy trains: scored only where the stage runs
            # (a resumed run reads the copy from its stage).
            first = split_scores(problem, fold.channel, fw.held, fw.decoys, fw.nulls, fw.distances, fold.split)
            return calibrated(problem, fold.channel, first.estimate(), fw.train, fw.train_rows, at, seed,
                              schedule.calibration_steps)  # fmt: skip

        copy = memo.run(f"calibration fold {fold.split}", calibrate).channel
        done += schedule.calibration_steps
        parts.append(split_scores(problem, copy, fw.held, fw.decoys, fw.nulls, fw.distances, fold.split))
    pooled = SplitScores.joined(parts).estimate()
    return dataclasses.replace(pooled, why=f"{pooled.why}, over {len(parts)} splits"), done
