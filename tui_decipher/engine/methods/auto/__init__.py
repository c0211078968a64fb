"""`method = "auto"`: choose the method and its settings from the two word lists alone, then decipher.

A user with a new pair of word lists knows neither which channel reads their scripts nor how
many lost words have a cognate. This method decides both, and says why, from the words alone
(never from gold):

1. **Script** (engine/methods/auto/scripts.py): lists that share most symbols are written in one alphabet and
   get the edit channel with its copy prior; different scripts get the pieces channel. Where the
   lost script reads as a syllabary (many more symbols than the known alphabet, shorter words),
   its sign map is first searched as a whole (`SyllableSearch`, engine/channels/syllables.py):
   the map that explains the lost words best starts every channel auto trains, where two starts
   agree on it and it explains them better than the signs' own frequencies do. A map that one
   start alone found (on a long list a start finds it rarely) may be the map or part of it, so
   the first probe is trained from it and from a random start, and the one whose held-out words
   beat the decoys more often is kept (2. below); otherwise channels start at random. Where the
   first starts explain the words about as well as a true map would and alike (`planted_gain`,
   CHANCE_SHARE, CHANCE_SPREAD: too few lost words to pin a map), no start can be told from
   chance: the search stops there.
2. **Demand D** (demand.py, probe.py): a probe channel is trained on part of the lost words (half
   for the edit channel; 80% for the pieces channel, whose sign map a syllabary's short words
   pin only with more of them); on the rest, held out, each lost word's best known word is
   compared with its best decoy (known-language-like words of the same lengths). Held-out
   words with a cognate beat the decoys; words without one win at the rate q that null words
   (lost-like trigram words, answer "none") do, at least half the time: D / N = (p - q) / (r - q),
   r the rate at which the probe's own cognates (words it writes from real known words) beat
   the decoys, since a cognate does not always win where spelling is lossy. D comes with the
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
3. **Fit**: the kept probe channel goes on training on every lost word with the transport objective
   and the estimated D (C: the least that lets D lost words reach the known list). On long lists
   (the full Ugaritic list) both train through shortlists (engine/channels/shortlist.py).
   The fit is kept unless, on the probe's held-out words, it does clearly worse than the probe
   did, though it has trained on them (`FitCheck`: paired tests): its words beat the decoys less
   often, or it reads fewer of those spelled as a known word as that word. Then it has drifted
   from the map the probe found, and the probe's channel is kept. On the full Ugaritic list the
   fit's channel drifts to drop Hebrew's y and h and read them into other letters, and prefers
   known words spelled with them (docs/experiments.md).
4. **Capacity C** (engine/methods/auto/capacity.py): read from the fitted channel's surest readings: 1 unless
   a fair share of them choose the same known word as another (inflected forms of one word). On a
   syllabary only a word and a longer form of it count: its lossy spelling lets words without a
   cognate read confidently as another word's known word, so other collisions there do not show
   inflected forms.
5. **Both directions** (one alphabet): a second edit channel is trained the other way, writing
   the known words from the lost ones (transport, D pairs, C = 1), and its log P(known | lost)
   weighs n_lost / (n_lost + n_known) of the final log-probabilities beside the fit's log P(lost |
   known) (`reverse_share`). Each direction charges what the other leaves out (docs/experiments.md).
   Lists long enough to train through shortlists read one direction (`reverse_steps`).
   The final costs then give the proposals (a flow with D and C over the costs per lost symbol)
   and the evaluation (whole costs), each flow over a graph widened until a wider one no longer
   lowers its cost (FLOW_GRAPH).

Every decision and its evidence is in the result's `decisions` (summary.json), and in one line.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
from pathlib import Path
from typing import Any

from ...channels.shortlist import shortlisted
from ...channels.trainer import score_channel
from ...checkpoint import Checkpoint
from ...config import DecipherConfig
from ...corpus import Corpus
from ...events import Decided, EventCallback, RunStarted
from ...problem import Problem, RunCancelled
from ...review import ReviewConstraints
from ...seeds import derive
from ...sign_values import SignValues, read_sign_values
from ..base import DecipherResult, empty_result
from ..channel import ChannelBlend, finish_channel_result, refine_channel, save_channel
from ..stages import StageMemo
from .capacity import estimate_capacity, least_capacity
from .decisions import AutoDecisions, _demand_phrase, choose_channel, own_settings, refit_under
from .fit_check import FitCheck
from .probe import MIN_LOST_WORDS, _held_evidence, _Probed, run_probes
from .schedule import FLOW_GRAPH, SCHEDULES, Schedule
from .scripts import ScriptProfile
from .syllable_search import _search_syllables, _Syllables
from .training import _train, _train_reverse, reverse_share, reverse_steps


class AutoMethod:
    """Decide the channel, D and C from the word lists, then decipher (engine/methods/base.py's Method)."""

    name = "auto"
    summary = "the channel, D and C chosen from the word lists (the default)"
    keeps_rounds = False
    decides_demand = True
    refines_with_signs = True

    def settings_error(self, cfg: DecipherConfig) -> str | None:
        return None

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
        memo = StageMemo.resuming(start, self.name)  # a killed run's completed stages, read back
        review = review if review is not None else memo.review
        profile = ScriptProfile.of(corpus.lost_words, corpus.known_words)
        kind, kind_why = choose_channel(profile, signs)
        schedule = SCHEDULES[kind] if not cfg.auto_steps else SCHEDULES[kind].scaled(cfg.auto_steps)
        chosen = own_settings(cfg).replace(
            channel_kind=kind, channel_objective="transport", channel_steps=schedule.budget, sparsify=FLOW_GRAPH
        )
        before = refit_of if refit_of is not None else memo
        problem = Problem.prepare(corpus, chosen, on_event, cancel, review=review, signs=signs,
                                  seconds_before=before.seconds, phases_before=before.phases)  # fmt: skip
        # A refit saves no stages: the finished run's checkpoint stays whole until the refit's own replaces it.
        memo.bind(checkpoint_path if refit_of is None else None, cfg, problem)
        on_event(
            RunStarted(
                corpus.name, corpus.lost_code, corpus.known_code, corpus.stats(), str(problem.device),
                0, chosen.epochs, 1, problem.n_cognates, 0, self.name,
            )
        )  # fmt: skip
        on_event(Decided("script", f"{kind} channel: {kind_why}", problem.elapsed()))
        if kind == "pieces" and shortlisted(problem.n_lost, problem.n_known):
            # Shortlists list each lost word's best known words under the channel as it is: before a
            # sign map is found (two scripts) they list noise, and the map may never be found.
            on_event(Decided("warning", f"warning: {problem.n_lost} x {problem.n_known} words train through "
                             "shortlists, and on two scripts they cannot list a cognate before the signs are read: "
                             "the map may not be found; a shorter known list or known sign values (--known-signs) "
                             "help", problem.elapsed()))  # fmt: skip
        result = empty_result(problem)
        try:
            syllables, searched = None, 0
            if schedule.syllables is not None and profile.syllabary:
                before, on_map = memo.progress("syllables")  # the starts a stopped run had found
                syllables = memo.run("syllables", lambda: _search_syllables(problem, schedule.syllables, before,
                                                                            on_map))  # fmt: skip
                searched = len(syllables.starts) * schedule.syllables.steps_each
                on_event(Decided("syllables", syllables.why, problem.elapsed()))
            probed = memo.run("probe", lambda: self._probe(problem, schedule, syllables, searched, memo))
            estimate = probed.estimate
            demand = estimate.demand_all
            least = least_capacity(demand, problem.n_known)
            if probed.why:
                on_event(Decided("probe", probed.why, problem.elapsed()))
            on_event(Decided("demand", _demand_phrase(estimate.as_dict()), problem.elapsed()))
            # The kept probe's channel goes on training on every lost word with the decided D (and
            # the least C that D needs); C for the flows is then read from its confident readings.
            # The progress total becomes the steps this run takes: a probe not tried is not counted.
            # Lists long enough to train through shortlists train no reverse channel (`reverse_steps`).
            back_steps, back_why = reverse_steps(schedule, problem.n_lost, problem.n_known)
            back_share = reverse_share(problem.n_lost, problem.n_known) if back_steps else 0.0
            steps_run = probed.steps + schedule.fit_steps + back_steps  # the search's included
            training = dataclasses.replace(
                problem, n_cognates=demand,
                cfg=chosen.replace(capacity=least, cognate_fraction=max(0.001, estimate.share),
                                   channel_steps=steps_run),
            )  # fmt: skip
            fit = memo.run("fit", lambda: _train(
                training, corpus.lost_words, schedule.fit_steps, probed.steps, derive(chosen.seed, "auto fit"), demand,
                least, start=copy.deepcopy(probed.channel), saving=memo.saving("fit")))  # fmt: skip
            fit_wins, fit_reads = _held_evidence(problem, fit.channel, probed)
            check = FitCheck.of(probed.estimate.wins_each, fit_wins, probed.estimate.reads_each, fit_reads)
            if not check.kept_fit:
                on_event(Decided("fit", check.why, problem.elapsed()))
            share = schedule.probe_share if check.kept_fit else 0.0
            blend = ChannelBlend(probed.channel, share) if share else None
            with problem.timer("score"):
                fit = score_channel(fit.channel if check.kept_fit else probed.channel, corpus.lost_words,
                                    corpus.known_words, problem.lost_charset, problem.known_charset)  # fmt: skip
            with problem.timer("capacity"):  # read from the kept channel's own readings, as it was chosen
                forms_of = corpus.lost_words if profile.syllabary else None
                capacity = estimate_capacity(fit.cost, demand, problem.n_known, forms_of)
            if back_steps:
                done = steps_run - back_steps
                reverse = memo.run("reverse", lambda: _train_reverse(training, demand, back_steps, done,
                                                                     memo.saving("reverse")))  # fmt: skip
                blend = ChannelBlend(reverse, back_share, reverse=True)
            if blend is not None:
                with problem.timer("score"):
                    fit = blend.mix_fit(fit, problem)  # in place on fit.cost
        except RunCancelled:
            result.status = "cancelled"
            return problem.finish(result)
        # The flows' D: the decided one, unless one-to-one readings kept it to the known list.
        flows_demand = capacity.demand
        flows_cfg = training.cfg.replace(capacity=capacity.capacity)
        if flows_demand != demand:
            flows_cfg = flows_cfg.replace(cognate_fraction=max(0.001, flows_demand / problem.n_lost))
        fitted = dataclasses.replace(training, n_cognates=flows_demand, cfg=flows_cfg)
        decisions = AutoDecisions(
            profile.as_dict(), kind, kind_why, estimate.as_dict(), capacity.capacity, capacity.why,
            steps_run, capacity.as_dict(), probed.evidence, probed.why, syllables.as_dict() if syllables else {},
            check.as_dict(), share, back_share, back_why,
        )  # fmt: skip
        result.decisions = decisions.as_dict()
        refined = 0
        if refit_of is not None:
            refined = result.refined = refit_of.refined + 1
            result.decisions["refinement"] = {"refit": len(signs or ())}
        on_event(Decided("capacity", decisions.line(), problem.elapsed()))
        result.config = fitted.cfg  # what ran: the decided channel, D (as its share) and C
        result.n_cognates = fitted.n_cognates
        extra: dict[str, Any] = {"decisions": result.decisions}
        if blend is not None:
            extra["blend"] = blend.state()
        save_channel(checkpoint_path, fitted, self.name, fit.channel, refined, extra=extra)
        return finish_channel_result(fitted, result, fit, blend)

    def _probe(
        self,
        problem: Problem,
        schedule: Schedule,
        syllables: _Syllables | None = None,
        done: int = 0,
        memo: StageMemo | None = None,
    ) -> _Probed:
        """The probes and the kept one (probe.py's `run_probes`)."""
        return run_probes(problem, schedule, syllables, done, memo)

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
        # its syllable search could tell no map from chance (too few words to pin one, as its line
        # says), sign values it did not have are what the search lacked: the run is fitted again
        # under them, search, probe and D included (`refit_under`).
        held = SignValues.from_state(start.state.get("sign_values"))
        if refit_under(start.state.get("decisions", {}), held, signs):
            assert signs is not None
            cfg = start.settings().replace(known_signs="")  # the values travel as `signs`, not as a file
            result = self._fit(corpus, cfg, on_event, cancel, checkpoint_path, None, constraints, held.merged(signs),
                               refit_of=start)  # fmt: skip
            if result.status != "cancelled":
                return result
            # Stopped: the run keeps the channel it had (a cancelled refinement's result, nothing trained).
            return refine_channel(self.name, corpus, start, constraints, rounds, on_event, cancel, None, draw)
        return refine_channel(
            self.name, corpus, start, constraints, rounds, on_event, cancel, checkpoint_path, draw, signs
        )

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
