"""Training one of auto's channels: the probes and the fit (`_train`), the reverse channel
(`_train_reverse`) and where it is left out, and a fresh channel started from a syllable map."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

import numpy as np
import torch

from ...channels.protocol import Channel
from ...channels.shortlist import shortlisted
from ...channels.syllable_seed import seed_channel
from ...channels.syllables import SyllableMap
from ...channels.trainer import ChannelFit, fit_channel, new_channel
from ...channels.training import ChannelTraining, Saving
from ...channels.transport import NoCognate
from ...corpora.corpus import Word
from ...run.config import ChannelObjective
from ...run.demand import Demand
from ...run.events import ChannelStep, Decided
from ...run.problem import Problem, RunCancelled
from ...run.seeds import derive
from .map_pins import map_values
from .schedule import Schedule


def _seeded(problem: Problem, found: SyllableMap | None, seed: int, pin: bool = False) -> Channel | None:
    """A fresh channel started from the syllable search's map (None where there is no map: the
    trainer then makes its own random start); with `pin`, pinned to the map's values as to a
    scholar's (`map_values`; the scholar's own, where given, take their signs' place)."""
    if found is None:
        return None
    cfg = problem.cfg
    signs = dataclasses.replace(problem, map_pins=map_values(found)).pinned_signs if pin else problem.pinned_signs
    channel = new_channel(cfg.channel_kind, problem.lost_charset, problem.known_charset,
                          torch.Generator().manual_seed(seed), cfg.channel_init_scale, cfg.channel_copy_bias,
                          signs, problem.device, cfg.channel_gaps)  # fmt: skip
    seed_channel(channel, found, problem.lost_charset, problem.known_charset)  # type: ignore[arg-type]
    return channel


def reverse_steps(schedule: Schedule, n_lost: int, n_known: int) -> tuple[int, str]:
    """The reverse channel's steps (0: none) and, where the schedule has one but it is left out, why.

    Where writing the known words from the lost ones is a long list (`shortlisted`: the full
    Ugaritic list, 39451 x 7235 words), the reverse channel costs more than the rest of the run
    (docs/experiments.md, "Both directions", its cost). A run there reads one direction."""
    if not schedule.reverse_steps:
        return 0, ""
    if shortlisted(n_known, n_lost):
        return 0, (f"one direction: {n_known} x {n_lost} words are too many pairs to also write the known words"
                   " from the lost ones")  # fmt: skip
    return schedule.reverse_steps, ""


def reverse_share(n_lost: int, n_known: int) -> float:
    """The reverse channel's share of the final log-probabilities, n_lost / (n_lost + n_known).

    A channel learns its letters from the words it writes that have a cognate: with D pairs, D /
    n_lost of the lost words and D / n_known of the known ones. Each direction weighs as that
    share, normalised, which is this whatever D is. Lists of one size weigh alike; a known list
    six times the lost one (the small Ugaritic file) gives the reverse 15%: most of the known words
    it learnt to write have no cognate (docs/experiments.md, "Both directions")."""
    return n_lost / (n_lost + n_known)


# Each training stops once it has settled (`ChannelTraining.settle`; the lexicon probe, which has no
# plan, by its losses: `losses_settled`). The reverse channel and the fit stop when their plan's
# objective rose less than this many nats a pair over SETTLE_STEPS steps, the lexicon probe when its
# mean batch loss fell less than this many nats a word. Each tolerance is half to a quarter of the
# largest that read within noise of every step on generated tuning corpora, since real words vary
# more (docs/speed.md: "The reverse channel stops once its plan has settled", "The fit stops once its
# plan has settled", "The lexicon probe stops once its losses settle").
REVERSE_SETTLE = 0.1
FIT_SETTLE = 0.1
LEXICON_SETTLE = 0.1


def _train_reverse(problem: Problem, demand: Demand, steps: int, done: int, saving: Saving | None = None) -> Channel:
    """A fresh channel trained the other way: every known word written from the lost words, with
    the transport objective, D = the run's `demand` (at most one pair a known word) and C = 1 (one
    known word a lost word), reporting its steps after the `done` ones.

    Why: each direction's log-probability leaves out what the other weighs. log P(lost | known)
    does not charge a known word for letters the lost word's spelling does not explain, and a
    known word that writes many lost words well (short, common letters) attracts them; log P(known
    | lost) charges exactly those; the two are blended by `reverse_share` (docs/experiments.md,
    "Both directions")."""
    back = problem.reversed(demand.kept_to(problem.n_known, problem.n_known))
    problem.on_event(Decided("reverse", f"both directions: a reverse channel writes the {problem.n_known} known"
                             f" words from the lost ones (up to {steps} steps, until its plan settles)",
                             problem.elapsed()))  # fmt: skip
    return _train(
        back,
        list(back.corpus.lost_words),
        steps,
        done,
        derive(problem.cfg.seed, "auto reverse"),
        back.demand.value,
        1,
        channel="reverse",
        saving=saving,
        settle=REVERSE_SETTLE,
    ).channel


def _train(
    problem: Problem,
    lost_words: Sequence[Word],
    steps: int,
    done: int,
    seed: int,
    demand: int,
    capacity: int,
    start: Channel | None = None,
    rows: np.ndarray | None = None,
    objective: ChannelObjective = "transport",
    losses: list[float] | None = None,
    channel: str = "",
    saving: Saving | None = None,
    no_cognate: NoCognate = "average",
    ends_after: Callable[[int], bool] = lambda _step: False,
    settle: float = 0.0,
) -> ChannelFit:
    """Train the problem's channel kind on `lost_words` (the corpus's lost words `rows`, None: all)
    against every known word with `objective` (transport: D = `demand`, C = `capacity`) under the
    problem's judgments, from `start` (None: a fresh channel), reporting steps after the `done`
    ones (as `channel`'s, `ChannelStep.channel`) and appending each batch loss to `losses`. No
    pair is scored after training (the fit's cost is empty): the caller scores the channel it
    keeps. `saving`: its state saved as it goes, and where a resumed run continues it.
    `no_cognate`: how the transport plan scores "no cognate" (engine/channels/transport.py).
    `ends_after(step)`: True ends the training after that step (`fit_channel`); `settle`: it ends
    once settled (`ChannelTraining.settle`). Raises
    RunCancelled when the cancel flag is set."""
    cfg = problem.cfg

    last: list[float] = [0, math.nan]  # the last step trained and its loss
    ended: list[int] = []  # the step at which `ends_after` ended the training (not its settling)

    def ends(step: int) -> bool:
        if ends_after(step):
            ended.append(step)
            return True
        return False

    def on_step(step: int, loss: float) -> None:
        last[:] = [step, loss]
        if losses is not None:
            losses.append(loss)
        problem.on_event(ChannelStep(0, done + step, cfg.channel_steps, loss, problem.elapsed(), objective, channel))

    with problem.timer("train"):
        training = ChannelTraining.of(cfg, steps, seed, objective=objective, demand=demand, capacity=capacity,
                                      score_all=False, no_cognate=no_cognate, settle=settle)  # fmt: skip
        fit = fit_channel(
            lost_words, problem.corpus.known_words, problem.lost_charset, problem.known_charset, training,
            on_step=on_step, should_stop=problem.cancel.is_set, ends_after=ends, start=start,
            review=problem.review, rows=rows,
            signs=problem.pinned_signs, device=problem.device, saving=saving,
        )  # fmt: skip
    if fit is None:
        raise RunCancelled()
    if 0 < last[0] < steps:  # stopped early (settled, or the caller's stop): its planned steps are done with
        _ended_early(problem, int(last[0]), last[1], steps, done, objective, channel, bool(settle and not ended))
    return fit


def _ended_early(problem: Problem, step: int, loss: float, steps: int, done: int, objective: ChannelObjective,
                 channel: str, settled: bool) -> None:  # fmt: skip
    """A training that ended at `step` of its `steps`: the line that says it settled (where it did,
    not where its caller stopped it), and its last step reported at its planned end, so the
    progress bar counts the steps it will not take as done."""
    if settled:
        lexicon = objective == "lexicon"  # it has no plan: its batch losses settled
        who, what = (channel or "the lexicon probe", "loss") if lexicon else (channel or "the fit", "plan")
        problem.on_event(Decided("settled", f"{who} channel: its {what} settled after {step} of {steps} steps",
                                 problem.elapsed()))  # fmt: skip
    problem.on_event(ChannelStep(0, done + steps, problem.cfg.channel_steps, loss, problem.elapsed(), objective,
                                 channel))  # fmt: skip
