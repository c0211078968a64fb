"""auto's run, stage by stage: the problem its decisions start from (`prepared`), the stages that
train (`fit_stages`: syllable search, probes, fit, capacity, reverse channel) and the problem its
flows solve (`flows_problem`). `AutoMethod._fit` (the package's `__init__`) strings them together."""

from __future__ import annotations

import copy
import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass

from ...channels.protocol import Channel
from ...channels.shortlist import REFRESH_EVERY, shortlisted
from ...channels.trainer import ChannelFit, score_channel
from ...constraints.review import ReviewConstraints
from ...constraints.sign_values import SignValues
from ...corpora.corpus import Corpus
from ...run.checkpoint import Checkpoint
from ...run.config import ChannelKind, DecipherConfig
from ...run.demand import Demand
from ...run.events import Decided, EventCallback, RunStarted
from ...run.problem import Problem
from ...run.seeds import derive
from ...run.side_by_side import Job, as_job
from ..channel_results import ChannelBlend
from ..stages import StageMemo
from .capacity import CapacityEstimate, estimate_capacity, least_capacity
from .decisions import KeptDemand, _demand_phrase, choose_channel, own_settings
from .fit_check import FitCheck
from .probe import _held_evidence, _Probed
from .schedule import FLOW_GRAPH, Schedule, schedule_for
from .scripts import ScriptProfile
from .syllable_search import _search_syllables, _Syllables
from .training import FIT_SETTLE, _train, _train_reverse, reverse_share, reverse_steps

# The probes and the kept one (`AutoMethod._probe`, probe.py's `run_probes`).
ProbeStage = Callable[[Problem, Schedule, "_Syllables | None", int, StageMemo], _Probed]


@dataclass(frozen=True)
class Prepared:
    """What auto decided before training: the script's profile, the channel kind and why, the
    schedule, the run's settings with the decided channel, and its problem."""

    profile: ScriptProfile
    kind: ChannelKind
    kind_why: str
    schedule: Schedule
    chosen: DecipherConfig
    problem: Problem


def prepared(
    corpus: Corpus, cfg: DecipherConfig, on_event: EventCallback, cancel: threading.Event,
    review: ReviewConstraints | None, signs: SignValues | None, before: StageMemo | Checkpoint, method: str,
) -> Prepared:  # fmt: skip
    """The channel kind chosen from the word lists (and `signs`), its schedule (scaled to
    `cfg.auto_steps` where set) and the problem it trains on, carrying the time and phases of
    `before` (a stopped run's memo, or the finished run a refit continues); the run's start and its
    script decision reported."""
    profile = ScriptProfile.of(corpus.lost_words, corpus.known_words)
    kind, kind_why = choose_channel(profile, signs)
    schedule = schedule_for(kind, cfg.auto_steps)
    # Gapped pieces where the lost script reads as a syllabary: a sign there writes a syllable, which a
    # transliteration may spell with a digraph (kha for the sign of ka); an alphabet's symbol writes a
    # letter, and on a generated 80-word cipher they cost the map (tests/test_refine_every_method.py).
    chosen = own_settings(cfg).replace(
        channel_kind=kind, channel_objective="transport", channel_steps=schedule.budget, sparsify=FLOW_GRAPH,
        channel_gaps=kind == "pieces" and profile.syllabary,
    )  # fmt: skip
    problem = Problem.prepare(corpus, chosen, on_event, cancel, review=review, signs=signs,
                              seconds_before=before.seconds, phases_before=before.phases)  # fmt: skip
    on_event(
        RunStarted(
            corpus.name, corpus.lost_code, corpus.known_code, corpus.stats(), str(problem.device),
            0, chosen.epochs, 1, problem.demand.value, 0, method, steps_at_most=True,
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
    return Prepared(profile, kind, kind_why, schedule, chosen, problem)


def _fit_check(problem: Problem, channel: Channel, probed: _Probed, stopped_after: int = 0) -> FitCheck:
    """The fit's `channel` against the kept probe's, on the probe's held-out words."""
    fit_wins, fit_reads = _held_evidence(problem, channel, probed)
    return dataclasses.replace(
        FitCheck.of(probed.estimate.wins_each, fit_wins, probed.estimate.reads_each, fit_reads),
        stopped_after=stopped_after,
    )


@dataclass
class DriftWatch:
    """The fit's check taken during its training, on a long list (`shortlisted`): at each
    shortlist refresh (every REFRESH_EVERY steps), before the refresh is paid for. A fit found
    drifted there stops, and the probe's channel is kept, as the check after its last step would
    have kept it (`check`: the check that stopped it; None: none did).

    Why only there: on the full Ugaritic list a refresh scores 285 M pairs (35-40 s on 2 cores)
    and the fit was found drifted after all its steps on every seed measured (docs/speed.md), so
    the fit's last two refreshes and 100 steps were thrown away. A check scores only the held-out
    words, against the known words and the decoys. Elsewhere a fit costs less than its checks."""

    problem: Problem
    probed: _Probed
    channel: Channel  # the fit's channel, trained in place
    check: FitCheck | None = None

    def __call__(self, step: int) -> bool:
        if step % REFRESH_EVERY:
            return False
        check = _fit_check(self.problem, self.channel, self.probed, stopped_after=step)
        if check.kept_fit:
            return False
        self.check = check
        return True


@dataclass
class FittedStages:
    """What the trained stages leave: the kept channel's costs (blended where a blend is), the
    problem they trained under (the decided D, the least C), and each decision's evidence."""

    fit: ChannelFit
    blend: ChannelBlend | None
    training: Problem
    syllables: _Syllables | None
    probed: _Probed
    check: FitCheck
    capacity: CapacityEstimate
    steps_run: int
    probe_share: float
    back_share: float
    back_why: str


def fit_stages(run: Prepared, memo: StageMemo, probe: ProbeStage, refit: KeptDemand | None = None) -> FittedStages:
    """Train what auto decided (see the package's docstring, 1-5): the syllable search where the
    lost script reads as a syllabary, the probes (`probe`) and D (`training.demand`), the fit and its
    check, C from the kept channel's readings, and the reverse channel. Each stage is one of `memo`'s
    (a stopped run resumes after the last it completed). `refit`: the D a refit keeps from its run
    (`kept_demand`), not read again. Raises RunCancelled when the cancel flag is set."""
    problem, schedule, chosen, corpus = run.problem, run.schedule, run.chosen, run.problem.corpus
    syllables, probed, demand = _probed(run, memo, probe, refit)
    least = least_capacity(demand.value, problem.n_known)
    # The kept probe's channel goes on training on every lost word with the decided D (and
    # the least C that D needs); C for the flows is then read from its confident readings.
    # The progress total becomes the steps this run takes: a probe not tried is not counted.
    # Long lists (`shortlisted`) train no reverse channel (`reverse_steps`).
    back_steps, back_why = reverse_steps(schedule, problem.n_lost, problem.n_known)
    back_share = reverse_share(problem.n_lost, problem.n_known) if back_steps else 0.0
    steps_run = probed.steps + schedule.fit_steps + back_steps  # the search's included
    # A probe pinned to the syllable map pins the run's channels from there on (its fit, and a
    # refinement of the finished run: the checkpoint keeps the map's values).
    training = dataclasses.replace(
        problem, demand=demand, map_pins=probed.map_pins,
        cfg=chosen.replace(capacity=least, cognate_fraction=demand.share, channel_steps=steps_run),
    )  # fmt: skip
    start = copy.deepcopy(probed.channel)
    watch = DriftWatch(problem, probed, start) if shortlisted(problem.n_lost, problem.n_known) else None

    def fit_job(own: Problem) -> ChannelFit:
        return _train(as_job(training, own), corpus.lost_words, schedule.fit_steps, probed.steps,
                      derive(chosen.seed, "auto fit"), demand.value, least, start=start, saving=memo.saving("fit"),
                      ends_after=watch or (lambda _step: False), settle=FIT_SETTLE)  # fmt: skip

    def reverse_job(own: Problem) -> Channel:
        return _train_reverse(as_job(training, own), demand, back_steps, steps_run - back_steps,
                              memo.saving("reverse"))  # fmt: skip

    # The fit and the reverse channel train from the decided D alone, neither waits for the other:
    # side by side where the run has the cores (`side_by_side`), each saved as it completes.
    jobs = {"fit": Job(probed.steps, fit_job)}
    if back_steps:
        jobs["reverse"] = Job(steps_run - back_steps, reverse_job)
    trained = memo.run_side_by_side(problem, jobs)
    fit = trained["fit"]
    check = watch.check if watch is not None and watch.check is not None else _fit_check(problem, fit.channel, probed)
    if not check.kept_fit:
        problem.on_event(Decided("fit", check.why, problem.elapsed()))
    share = schedule.probe_share if check.kept_fit else 0.0
    blend = ChannelBlend(probed.channel, share) if share else None
    with problem.timer("score"):
        kept = score_channel(fit.channel if check.kept_fit else probed.channel, corpus.lost_words,
                             corpus.known_words, problem.lost_charset, problem.known_charset)  # fmt: skip
    with problem.timer("capacity"):  # read from the kept channel's own readings, as it was chosen
        forms_of = corpus.lost_words if run.profile.syllabary else None
        capacity = estimate_capacity(kept.cost, demand.value, problem.n_known, forms_of)
    if back_steps:
        blend = ChannelBlend(trained["reverse"], back_share, reverse=True)
    if blend is not None:
        with problem.timer("score"):
            kept = blend.mix_fit(kept, problem)  # in place on kept.cost
    return FittedStages(kept, blend, training, syllables, probed, check, capacity, steps_run, share, back_share,
                        back_why)  # fmt: skip


def _probed(run: Prepared, memo: StageMemo, probe: ProbeStage,
            refit_demand: KeptDemand | None) -> tuple[_Syllables | None, _Probed, Demand]:  # fmt: skip
    """The syllable search (where the lost script reads as a syllabary) and the probes, each one of
    `memo`'s stages, and D: as the evidence reads it, or kept from a run (`refit_demand`), or as the
    decipherer gave it (`auto_demand`: the evidence's reading and range beside it); the probe's
    and D's lines reported."""
    problem, schedule = run.problem, run.schedule
    syllables, searched = None, 0
    search = schedule.syllables
    if search is not None and run.profile.syllabary:
        before, on_map = memo.progress("syllables")  # the starts a stopped run had found
        syllables = memo.run("syllables", lambda: _search_syllables(problem, search, before, on_map))
        searched = len(syllables.starts) * search.steps_each
        problem.on_event(Decided("syllables", syllables.why, problem.elapsed()))
    probed = memo.run("probe", lambda: probe(problem, schedule, syllables, searched, memo))
    demand = probed.estimate.demand()
    if refit_demand is not None:
        demand = demand.kept(refit_demand.share, problem.n_lost, refit_demand.high)
    elif problem.cfg.auto_demand:
        demand = demand.given(problem.cfg.auto_demand, problem.n_lost)
    if probed.why:
        problem.on_event(Decided("probe", probed.why, problem.elapsed()))
    problem.on_event(Decided("demand", _demand_phrase(probed.estimate.as_dict(demand)), problem.elapsed()))
    return syllables, probed, demand


def flows_problem(fitted: FittedStages) -> Problem:
    """The problem the flows solve: the decided D (with the range the evidence allows: the pairs
    beyond D are read up to its high end), unless one-to-one readings keep it to the known list,
    and the C read from the readings."""
    training, capacity = fitted.training, fitted.capacity
    flows = training.with_demand(training.demand.kept_to(capacity.most_demand, training.n_lost))
    return dataclasses.replace(flows, cfg=flows.cfg.replace(capacity=capacity.capacity))
