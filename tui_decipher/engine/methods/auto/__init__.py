"""`method = "auto"`: choose the method and its settings from the two word lists alone, then decipher.

A user with a new pair of word lists knows neither which channel reads their scripts nor how
many lost words have a cognate. This method decides both, and says why, from the words alone
(never from gold):

1. **Script** (engine/methods/auto/scripts.py): lists that share most symbols are written in one alphabet and
   get the edit channel with its copy prior; different scripts get the pieces channel. Where the
   lost script reads as a syllabary (many more symbols than the known alphabet, shorter words),
   its sign map is first searched as a whole (`SyllableSearch`, engine/channels/syllables.py):
   the map that explains the lost words best starts every channel auto trains, where two starts
   agree on it and it explains them better than the signs' own frequencies do. Where it was
   searched under a scholar's values, the first probe is trained pinned to it (its syllables as
   values, map_pins.py) and free to leave it, and the one whose held-out words beat the decoys more
   often is kept (2. below); a pinned one's channel pins the fit and any refinement. A map that
   one start alone found (on a long list a start finds it rarely) may be the map or part of it,
   so the first probe is trained from it and from a random start, and kept as above; otherwise
   channels start at random. Where the
   first starts explain the words about as well as a true map would and alike (`planted_gain`,
   CHANCE_SHARE, CHANCE_SPREAD: too few lost words to pin a map), no start can be told from
   chance: the search stops there.
2. **Demand D** (demand.py, probe.py): a probe channel is trained on part of the lost words (half
   for the edit channel; 80% for the pieces channel, whose sign map a syllabary's short words
   pin only with more of them); on the rest, held out, each lost word's best known word is
   compared with its best decoy (known-language-like words of the same lengths; its win
   averaged over eight such lexicons, `DECOY_LEXICONS`). Held-out
   words with a cognate beat the decoys; words without one win at the rate q that null words
   (lost-like trigram words, answer "none") do, at least half the time: D / N = (p - q) / (r - q),
   r the rate at which the probe's own cognates (words it writes from real known words) beat
   the decoys, since a cognate does not always win where spelling is lossy (on one alphabet
   read by the probe and by a channel trained on its held-out words, cross_channel.py). D comes with the
   range the evidence allows, and p, q and r are read with a copy of the kept probe calibrated at
   its low end (calibration.py). Holding out matters: a channel fits a trained-on word to *some*
   known word, so trained on, a word without a cognate beats the decoys far more often than half.
   The pieces channel's probe has two candidates (`Schedule`): the lexicon objective, which finds
   a syllabary's map fast where nearly every lost word has a cognate, and the transport objective
   (D guessed at half), which finds it where many have none. The lexicon's is kept when its own
   evidence allows that nearly every lost word has a cognate (its assumption holds); otherwise the
   transport probe is trained too and the one whose held-out words beat the decoys more often
   is kept: a probe that found the map makes cognates win, one that did not wins by chance.
   The transport objective finds a map from some random starts only, so its probe starts from a
   `Search` on the probe's training words (never the held-out ones): the start with the lower loss.
   D itself, from that evidence, the decipherer's `auto_demand` or a refit's kept D, and later the
   known list's cap and the pairs accepted past D, is decided by engine/run/demand.py alone.
3. **Fit**: the kept probe channel goes on training on every lost word with the transport objective
   and the estimated D (C: the least that lets D lost words reach the known list). On long lists
   (the full Ugaritic list) both train through shortlists (engine/channels/shortlist.py). The fit
   trains until its plan settles (`FIT_SETTLE`), at most its schedule's steps.
   The fit is kept unless, on the probe's held-out words, it does clearly worse than the probe
   did, though it has trained on them (`FitCheck`: paired tests): its words beat the decoys less
   often, or it reads fewer of those spelled as a known word as that word. Then it has drifted
   from the map the probe found, and the probe's channel is kept. On the full Ugaritic list the
   fit's channel drifts to drop Hebrew's y and h and read them into other letters, and prefers
   known words spelled with them (docs/experiments.md). On a long list (`shortlisted`: there every
   channel trains through shortlists) the check also runs at each refresh, and a fit found
   drifted stops there (`DriftWatch`).
4. **Capacity C** (engine/methods/auto/capacity.py): read from the fitted channel's surest readings: 1 unless
   a fair share of them choose the same known word as another (inflected forms of one word). On a
   syllabary only a word and a longer form of it count: its lossy spelling lets words without a
   cognate read confidently as another word's known word, so other collisions there do not show
   inflected forms.
5. **A cipher read again** (reading.py): two scripts of about as many symbols, the lost one no
   syllabary: the kept channel's map of signs to letters places the edit channel's copy prior and
   the stages above run again on one alphabet, pass after pass until the map stands still.
6. **Both directions** (one alphabet): a second edit channel is trained the other way, writing
   the known words from the lost ones (transport, D pairs, C = 1), and its log P(known | lost)
   weighs n_lost / (n_lost + n_known) of the final log-probabilities beside the fit's log P(lost |
   known) (`reverse_share`). Each direction charges what the other leaves out (docs/experiments.md).
   Long lists (`shortlisted`: the full Ugaritic list) read one direction (`reverse_steps`). It trains
   until its plan settles (`REVERSE_SETTLE`), at most its schedule's steps.
   The final costs then give the proposals (a flow with D and C over the costs per lost symbol)
   and the evaluation (whole costs), each flow over a graph widened until a wider one no longer
   lowers its cost (FLOW_GRAPH).

Every decision and its evidence is in the result's `decisions` (summary.json), and in one line.
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any

from ...constraints.review import ReviewConstraints
from ...constraints.sign_values import SignValues, read_sign_values
from ...corpora.corpus import Corpus
from ...run.checkpoint import Checkpoint, allow_in_older_checkpoints
from ...run.config import DecipherConfig
from ...run.events import Decided, EventCallback
from ...run.method_summaries import SUMMARIES
from ...run.problem import Problem, RunCancelled
from ...run.state_data import class_table
from ..base import DecipherResult, empty_result
from ..channel_results import finish_channel_result, save_channel
from ..refinement import judged_demand, refine_channel
from ..stages import CHANNEL_STAGE_CLASSES, StageMemo, check_refinable, check_resumable
from .decisions import AutoDecisions, kept_demand, refit_under
from .demand import DemandEstimate
from .fitting import FittedStages, Prepared, fit_stages, flows_problem, prepared
from .probe import _Estimate, _Probed, run_probes
from .probe_words import MIN_LOST_WORDS
from .reading import PassSteps, ReadAgain, read_again, reads_again
from .schedule import Schedule
from .syllable_search import _Syllables

# What auto's stages hold beyond a channel method's: its probes, their estimates of D, the syllable
# search's result (engine/methods/stages.py reads back objects of these classes and no other).
STAGE_CLASSES = {**CHANNEL_STAGE_CLASSES, **class_table(_Probed, _Estimate, DemandEstimate, _Syllables)}
allow_in_older_checkpoints(STAGE_CLASSES.values())


def _decisions(run: Prepared, fitted: FittedStages) -> AutoDecisions:
    """What auto decided, and why, from the run as prepared and its trained stages."""
    demand = fitted.probed.estimate.as_dict(fitted.training.demand)
    return AutoDecisions(
        run.profile.as_dict(), run.kind, run.kind_why, demand, fitted.capacity.capacity,
        fitted.capacity.why, fitted.steps_run, fitted.capacity.as_dict(), fitted.probed.evidence, fitted.probed.why,
        fitted.syllables.as_dict() if fitted.syllables else {}, fitted.check.as_dict(), fitted.probe_share,
        fitted.back_share, fitted.back_why,
    )  # fmt: skip


def _flows(fitted: FittedStages, refit_of: Checkpoint | None) -> tuple[Problem, int, int]:
    """The flows' problem of a run or a refit, D before the pairs accepted past it (a refit's
    `judged_demand`) and after them: pairs the decipherer accepted past D add to it, as a
    refinement's do."""
    flows = flows_problem(fitted)
    base = flows.demand.value
    if refit_of is not None:
        flows = flows.with_demand(judged_demand(flows, fitted.fit.cost))
    return flows, base, flows.demand.value


class AutoMethod:
    """Decide the channel, D and C from the word lists, then decipher (engine/methods/base.py's Method)."""

    name = "auto"
    summary = SUMMARIES["auto"]
    keeps_rounds = False
    decides_demand = True
    refines_with_signs = True

    def check_known_signs(self, signs: SignValues, cfg: DecipherConfig) -> None:
        """auto picks the pieces channel where a value is a syllable: any values can constrain it."""

    def quick_changes(self, cfg: DecipherConfig, channel_steps: int) -> dict[str, Any]:
        return {"auto_steps": channel_steps}

    def fit(
        self,
        corpus: Corpus,
        cfg: DecipherConfig,
        on_event: EventCallback,
        cancel: threading.Event,
        checkpoint_path: Path | None = None,
        start: Checkpoint | None = None,
        review: ReviewConstraints | None = None,
    ) -> DecipherResult:
        signs = read_sign_values(cfg.known_signs, corpus) if cfg.known_signs else None
        return self._fit(corpus, cfg, on_event, cancel, checkpoint_path, start, review, signs)

    def _fit(
        self,
        corpus: Corpus,
        cfg: DecipherConfig,
        on_event: EventCallback,
        cancel: threading.Event,
        checkpoint_path: Path | None,
        start: Checkpoint | None,
        review: ReviewConstraints | None,
        signs: SignValues | None,
        refit_of: Checkpoint | None = None,
    ) -> DecipherResult:
        """`fit` with its sign values given; `refit_of`: the finished run a refinement fits again
        under pinned values (`refine`), whose time and refinement count it carries on."""
        memo = StageMemo.resuming(start, self.name, STAGE_CLASSES)  # a killed run's completed stages, read back
        review = review if review is not None else memo.review
        before = refit_of if refit_of is not None else memo
        run = prepared(corpus, cfg, on_event, cancel, review, signs, before, self.name)
        passes: PassSteps | None = None  # a cipher of an alphabet is read again (reading.py)
        if cfg.auto_read_again and reads_again(run.profile, signs):
            run, passes = PassSteps.around(run)
        problem = run.problem
        # A refit saves no stages: the finished run's checkpoint stays whole until the refit's own replaces it.
        memo.bind(checkpoint_path if refit_of is None else None, cfg, problem)
        result = empty_result(problem)
        # A refit keeps the run's D where its search had found a map (`kept_demand`).
        before_decisions = refit_of.state.get("decisions", {}) if refit_of is not None else {}
        kept = kept_demand(refit_of.state) if refit_of is not None else None
        # A kept D is not read again, so neither is the calibrated copy trained that would read it.
        probe = self._probe if kept is None else functools.partial(self._probe, calibrate=False)
        reread: ReadAgain | None = None
        try:
            fitted = fit_stages(run, memo, probe, kept)
            if passes is not None:
                run, fitted, reread = read_again(run, fitted, probe, self.name, STAGE_CLASSES, passes)
        except RunCancelled:
            result.status = "cancelled"
            return problem.finish(result)
        flows, base, demand = _flows(fitted, refit_of)
        decisions = _decisions(run, fitted)
        result.decisions = decisions.as_dict()
        if reread is not None:
            result.decisions["reading"] = reread.as_dict()
        refined = 0
        if refit_of is not None:
            refined = result.refined = refit_of.refined + 1
            map_found = bool((before_decisions.get("syllables") or {}).get("used"))
            result.decisions["refinement"] = {
                "refit": len(signs or ()), "map_found": map_found,
                **({"kept_demand": fitted.training.demand.value} if kept is not None else {}),
                **({"demand": {"before": base, "after": demand}} if demand != base else {}),
            }  # fmt: skip
        on_event(Decided("capacity", decisions.line(), problem.elapsed()))
        result.config = flows.cfg  # what ran: the decided channel, D (as its share) and C
        result.demand = flows.demand.value
        blend = {"blend": fitted.blend.state()} if fitted.blend is not None else {}
        extra: dict[str, Any] = {"decisions": result.decisions, "demand_base": base, **blend}
        save_channel(checkpoint_path, flows, self.name, fitted.fit.channel, refined, extra=extra)
        return finish_channel_result(flows, result, fitted.fit, fitted.blend)

    def _probe(
        self,
        problem: Problem,
        schedule: Schedule,
        syllables: _Syllables | None = None,
        done: int = 0,
        memo: StageMemo | None = None,
        calibrate: bool = True,
    ) -> _Probed:
        """The probes and the kept one (probe.py's `run_probes`)."""
        return run_probes(problem, schedule, syllables, done, memo, calibrate)

    def refine(
        self,
        corpus: Corpus,
        start: Checkpoint,
        constraints: ReviewConstraints,
        rounds: int,
        on_event: EventCallback,
        cancel: threading.Event,
        checkpoint_path: Path | None = None,
        draw: int = 0,
        signs: SignValues | None = None,
    ) -> DecipherResult:
        # Its decisions stand: a refinement trains the channel it chose, with its D and C. But where
        # it searched its signs as syllables, sign values it did not have are what the search lacked
        # (it could tell no map from chance) or what its map and channel were made without: the run
        # is fitted again under them, search and probes included, D kept where it had a map
        # (`refit_under`, `kept_demand`).
        run_signs = SignValues.from_state(start.state.get("sign_values"))
        if refit_under(start.state.get("decisions", {}), run_signs, signs):
            assert signs is not None
            cfg = start.settings().replace(known_signs="")  # the values travel as `signs`, not as a file
            result = self._fit(corpus, cfg, on_event, cancel, checkpoint_path, None, constraints,
                               run_signs.merged(signs), refit_of=start)  # fmt: skip
            if result.status != "cancelled":
                return result
            # Stopped: the run keeps the channel it had (a cancelled refinement's result, nothing trained).
            return refine_channel(self.name, corpus, start, constraints, rounds, on_event, cancel, None, draw)
        return refine_channel(
            self.name, corpus, start, constraints, rounds, on_event, cancel, checkpoint_path, draw, signs
        )

    def check_resume(self, start: Checkpoint) -> None:
        check_resumable(start, STAGE_CLASSES)

    def check_refine(self, start: Checkpoint) -> None:
        check_refinable(start)

    def check(self, corpus: Corpus, cfg: DecipherConfig) -> None:
        """auto decides from held-out words: it needs a word to train on and one to hold out."""
        if len(corpus.lost_words) < MIN_LOST_WORDS:
            raise ValueError(
                f"{corpus.name}: {len(corpus.lost_words)} lost word(s); auto needs at least {MIN_LOST_WORDS} "
                "(one to train its channel on, one held out to decide D): add words, or use --method channel"
            )

    def describe(self, config: dict[str, Any]) -> str:
        # A finished run's own line is its decisions' (describe_run); this is the line before them.
        return "auto: the channel, D and C chosen from the word lists"

    def char_map_source(self, config: dict[str, Any]) -> str:
        return "the channel auto chose (its decisions say which): P(written symbol | known letters)"
