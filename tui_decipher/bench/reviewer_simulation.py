"""A simulated reviewer and a simulated scholar's known readings, for the bench's refine settings only.

The benchmark measures what reviewer-guided refinement buys: a reviewer who knows the answers
(the gold list stands in for an epigrapher's judgment) accepts the most confident correct
proposals and rejects the most confident wrong ones, the run is refined, and this repeats. The
figure that matters is accuracy on the words the reviewer did NOT judge: refinement must help the
rest of the vocabulary, not merely echo the reviewer back.

Gold is read here to play the reviewer and to score; the engine itself only ever sees the
decisions, as it would from a person.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np

from ..engine.constraints.review import ACCEPTED, REJECTED, ReviewConstraints
from ..engine.corpora.corpus import Corpus
from ..engine.evaluation import metrics
from ..engine.methods import DecipherResult, refine_decipherment, run_decipherment
from ..engine.run.checkpoint import CHECKPOINT_NAME, load_checkpoint, save_checkpoint
from ..engine.run.config import DecipherConfig
from ..engine.run.events import EventCallback, ignore
from ..session.boundary import boundary_pairs, demand_range
from ..session.settled_demand import SettledDemand, settle_demand
from ..store import OPEN, ProposalRow


def simulate_review(
    result: DecipherResult, corpus: Corpus, judged: dict[tuple[int, int], str], n_accept: int, n_reject: int
) -> dict[tuple[int, int], str]:
    """New decisions: the `n_accept` most confident correct and `n_reject` most confident wrong
    proposals among those not judged yet (proposals are already sorted by confidence)."""
    new: dict[tuple[int, int], str] = {}
    accepted = rejected = 0
    for p in result.proposals:
        pair = (p.lost, p.known)
        if pair in judged or not corpus.gold.get(p.lost):
            continue  # a reviewer cannot judge a word without a known answer here
        if p.known in corpus.gold[p.lost]:
            if accepted < n_accept:
                new[pair], accepted = ACCEPTED, accepted + 1
        elif rejected < n_reject:
            new[pair], rejected = REJECTED, rejected + 1
        if accepted >= n_accept and rejected >= n_reject:
            break
    return new


def accuracy_on(predictions: np.ndarray | None, corpus: Corpus, lost_words: set[int]) -> float:
    """Flow accuracy over the given lost words (each must have a gold cognate). A result without
    flow predictions (a corpus without gold) has no word to score: 0.0 over none."""
    if predictions is None:
        if lost_words:
            raise ValueError(f"no flow predictions to score {len(lost_words)} lost word(s) on")
        return 0.0
    return metrics.accuracy(predictions, {i: corpus.gold[i] for i in lost_words})[0]


@dataclass
class RefineBenchmark:
    """What `run_refine_benchmark` measured; accuracies are on the never-judged evaluated words,
    means over the draws (each draw's own figures in `draws`)."""

    accuracy_unrefined: float
    accuracy_refined: float
    accuracy_control: float | None  # the same refinements, call for call, without any decisions
    accuracy_unrefined_all: float
    accuracy_refined_all: float
    n_unjudged: int
    n_accepted: int
    n_rejected: int
    iterations: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    phase_seconds: dict[str, float] = field(default_factory=dict)
    seconds_unrefined: float = 0.0  # the run before review
    seconds_refine: float = 0.0  # one refinement, the mean of the cycles'
    draws: list[dict] = field(default_factory=list)  # per draw: its unjudged words' count and accuracies


def run_refine_benchmark(
    corpus: Corpus,
    cfg: DecipherConfig,
    iterations: int = 3,
    refine_rounds: int = 1,
    n_accept: int = 20,
    n_reject: int = 20,
    control: bool = True,
    on_event: EventCallback = ignore,
    log: Callable[[str], None] = lambda _line: None,
    draws: int = 1,
) -> RefineBenchmark:
    """Train, then `iterations` times: simulate a review of the proposals and refine the run.

    With `draws` > 1 the cycles (and the control's refinements) are repeated from the same trained
    run with each refinement draw (`refine_decipherment`'s `draw`), and the figures are their means:
    one draw's batches and dropout can move a refinement by more than the judgments do. Each draw's
    reviewer judges the pairs that draw proposes, so each draw is scored on its own unjudged words."""
    started = time.perf_counter()
    evaluated = {i for i, g in corpus.gold.items() if g}
    with tempfile.TemporaryDirectory(prefix="decipher-refine-") as tmp:
        folder = Path(tmp)
        base = run_decipherment(corpus, cfg, on_event, checkpoint=folder / "base" / CHECKPOINT_NAME)
        base_payload = load_checkpoint(folder / "base")
        log(f"unrefined: flow accuracy {base.accuracy:.3f}")

        def from_base(name: str) -> Path:
            """A folder holding a copy of the trained run's checkpoint, for one line of refinements."""
            (folder / name).mkdir()
            save_checkpoint(folder / name / CHECKPOINT_NAME, base_payload)
            return folder / name

        steps: list[dict] = []
        measured: list[dict] = []
        for draw in range(draws):
            result, judged = _reviewed_refinements(
                corpus, base, from_base(f"review-{draw}"), draw, iterations, refine_rounds, n_accept, n_reject,
                on_event, log, steps,
            )  # fmt: skip
            control_result = None
            if control:
                control_result = _control_refinements(corpus, from_base(f"control-{draw}"), draw, iterations,
                                                      refine_rounds, on_event)  # fmt: skip
            measured.append(_draw_figures(draw, corpus, evaluated, judged, base, result, control_result))
    return _over_draws(base, result, measured, steps, started)


def _over_draws(
    base: DecipherResult, result: DecipherResult, measured: list[dict], steps: list[dict], started: float
) -> RefineBenchmark:
    """The benchmark from every draw's figures (`measured`) and cycles (`steps`): the means over the
    draws; `result` is the last draw's last refinement, `started` when the benchmark began."""
    controls = [m["control"] for m in measured]
    return RefineBenchmark(
        accuracy_unrefined=fmean(m["unrefined"] for m in measured),
        accuracy_refined=fmean(m["refined"] for m in measured),
        accuracy_control=None if None in controls else fmean(controls),
        accuracy_unrefined_all=float(base.accuracy or 0.0),
        accuracy_refined_all=fmean(m["refined_all"] for m in measured),
        n_unjudged=round(fmean(m["n_unjudged"] for m in measured)),
        n_accepted=measured[-1]["accepted"],
        n_rejected=measured[-1]["rejected"],
        iterations=steps,
        seconds=time.perf_counter() - started,
        phase_seconds=dict(result.phase_seconds),
        seconds_unrefined=base.seconds,
        seconds_refine=sum(step["seconds"] for step in steps) / max(1, len(steps)),
        draws=measured,
    )


def _reviewed_refinements(
    corpus: Corpus,
    base: DecipherResult,
    reviewed: Path,
    draw: int,
    iterations: int,
    refine_rounds: int,
    n_accept: int,
    n_reject: int,
    on_event: EventCallback,
    log: Callable[[str], None],
    steps: list[dict],
) -> tuple[DecipherResult, dict[tuple[int, int], str]]:
    """One draw's `iterations` cycles from the trained run `base` (its checkpoint copied into
    `reviewed`): the reviewer judges the last result's proposals, then the run is refined with every
    decision so far. Each cycle's record is appended to `steps`; returns the last result and the
    decisions."""
    judged: dict[tuple[int, int], str] = {}
    result = base
    for n in range(1, iterations + 1):
        judged.update(simulate_review(result, corpus, judged, n_accept, n_reject))
        review = ReviewConstraints.from_judgments(judged)
        t0 = time.perf_counter()
        result = refine_decipherment(
            corpus, load_checkpoint(reviewed), review, refine_rounds, on_event,
            checkpoint=reviewed / CHECKPOINT_NAME, draw=draw,
        )  # fmt: skip
        steps.append({"draw": draw, "iteration": n, "accepted": len(review.accepted),
                      "rejected": len(review.rejected), "accuracy_all": result.accuracy,
                      "seconds": time.perf_counter() - t0})  # fmt: skip
        log(f"draw {draw}, refinement {n}: {len(review.accepted)} accepted, {len(review.rejected)} "
            f"rejected, flow accuracy {result.accuracy:.3f}")  # fmt: skip
    return result, judged


def _control_refinements(
    corpus: Corpus, controlled: Path, draw: int, iterations: int, refine_rounds: int, on_event: EventCallback
) -> DecipherResult | None:
    """The control of one draw: the same refinements as the reviewed line, from the trained run's
    checkpoint copied into `controlled`, with no decisions; the last result (None without cycles)."""
    # The same refinements, call for call, with no decisions: a refinement starts a fresh
    # optimiser and draws its own batches, so one long call would not be the same training.
    control_result = None
    for _ in range(iterations):
        control_result = refine_decipherment(
            corpus,
            load_checkpoint(controlled),
            ReviewConstraints(),
            refine_rounds,
            on_event,
            checkpoint=controlled / CHECKPOINT_NAME,
            draw=draw,
        )
    return control_result


def _draw_figures(
    draw: int,
    corpus: Corpus,
    evaluated: set[int],
    judged: dict[tuple[int, int], str],
    base: DecipherResult,
    result: DecipherResult,
    control_result: DecipherResult | None,
) -> dict:
    """One draw's figures, on the evaluated words its reviewer never judged."""
    review = ReviewConstraints.from_judgments(judged)
    unjudged = evaluated - review.judged_lost()
    return {
        "draw": draw, "n_unjudged": len(unjudged), "accepted": len(review.accepted),
        "rejected": len(review.rejected),
        "unrefined": accuracy_on(base.predictions, corpus, unjudged),
        "refined": accuracy_on(result.predictions, corpus, unjudged),
        "control": None if control_result is None
        else accuracy_on(control_result.predictions, corpus, unjudged),
        "refined_all": float(result.accuracy or 0.0),
    }  # fmt: skip


@dataclass
class KnownReadingsBenchmark:
    """What `run_known_readings_benchmark` measured: accuracy on the words not given."""

    accuracy_without: float
    accuracy_with: float
    n_other: int
    given: list[tuple[int, int]]
    seconds_without: float
    seconds_with: float


def run_known_readings_benchmark(
    corpus: Corpus,
    cfg: DecipherConfig,
    n_known: int = 10,
    seed: int = 0,
    on_event: EventCallback = ignore,
    log: Callable[[str], None] = lambda _line: None,
) -> KnownReadingsBenchmark:
    """A scholar who knows `n_known` correct pairs before the run (drawn from gold, seeded: the
    bench's stand-in for a bilingual's readings): the run with them against the run without, both
    scored on the evaluated words that were not given."""
    pairs = sorted((i, min(js)) for i, js in corpus.gold.items() if js)
    given = sorted(np.random.default_rng(seed).permutation(len(pairs))[:n_known].tolist())
    known = ReviewConstraints(tuple(pairs[n] for n in given))
    others = {i for i, _ in pairs} - known.judged_lost()
    without = run_decipherment(corpus, cfg, on_event)
    log(f"without known pairs: flow accuracy {without.accuracy:.3f}")
    helped = run_decipherment(corpus, cfg, on_event, review=known)
    log(f"with {len(known.accepted)} known pairs: flow accuracy {helped.accuracy:.3f}")
    return KnownReadingsBenchmark(
        accuracy_on(without.predictions, corpus, others), accuracy_on(helped.predictions, corpus, others),
        len(others), list(known.accepted), without.seconds, helped.seconds,
    )  # fmt: skip


@dataclass
class CeilingBenchmark:
    """What `run_ceiling_benchmark` measured, over every evaluated word (each scored in its fold)."""

    accuracy_without: float
    accuracy_with: float
    n_other: int  # evaluated words scored, each in its fold (on a run not given its pair)
    changed: int  # scored words whose prediction the given pairs changed
    folds: list[dict] = field(default_factory=list)
    seconds_without: float = 0.0
    seconds_with: float = 0.0  # the mean of the folds' runs


def run_ceiling_benchmark(
    corpus: Corpus,
    cfg: DecipherConfig,
    folds: int = 2,
    seed: int = 0,
    on_event: EventCallback = ignore,
    log: Callable[[str], None] = lambda _line: None,
) -> CeilingBenchmark:
    """An oracle reviewer's ceiling for a method: gold's pairs are split into `folds` (seeded); each
    fold's words are scored on a run given every other fold's pairs as known pairs from its start,
    against the same run without them. Far more correct pairs than a reviewer gives, so what it
    gains bounds what judgments can teach the method (docs/experiments.md)."""
    pairs = sorted((i, min(js)) for i, js in corpus.gold.items() if js)
    order = np.random.default_rng(seed).permutation(len(pairs))
    without = run_decipherment(corpus, cfg, on_event)
    log(f"without known pairs: flow accuracy {without.accuracy:.3f}")
    measured: list[dict] = []
    for fold in range(folds):
        held = set(order[fold::folds].tolist())
        known = ReviewConstraints(tuple(pairs[n] for n in range(len(pairs)) if n not in held))
        others = {pairs[n][0] for n in held} - known.judged_lost()
        helped = run_decipherment(corpus, cfg, on_event, review=known)
        before = accuracy_on(without.predictions, corpus, others)
        after = accuracy_on(helped.predictions, corpus, others)
        log(f"fold {fold + 1}/{folds}: {len(known.accepted)} pairs given, {len(others)} words scored: "
            f"{before:.3f} -> {after:.3f}")  # fmt: skip
        measured.append({"given": len(known.accepted), "scored": len(others), "without": before, "with": after,
                         "changed": _changed(without.predictions, helped.predictions, others),
                         "seconds": helped.seconds})  # fmt: skip
    scored = sum(f["scored"] for f in measured)

    def over_words(key: str) -> float:  # the folds' accuracies, weighed by the words each scored
        return sum(f[key] * f["scored"] for f in measured) / max(1, scored)

    return CeilingBenchmark(over_words("without"), over_words("with"), scored, sum(f["changed"] for f in measured),
                            measured, without.seconds, fmean(f["seconds"] for f in measured))  # fmt: skip


def _changed(before: np.ndarray | None, after: np.ndarray | None, lost_words: set[int]) -> int:
    """How many of the lost words two runs' flow predictions differ on (none without predictions:
    `accuracy_on` has refused words to score then)."""
    if before is None or after is None:
        return 0
    return sum(int(before[i] != after[i]) for i in lost_words)


# --- the boundary review answered from gold (issue "D the decipherer settles") -----------------------

BOUNDARY_JUDGED = (10, 20)  # the judgments a scholar gives the boundary queue, as measured


def answer_boundary(
    gold: Sequence[bool | None], demand: int, decisions: dict[str, Any], n: int
) -> SettledDemand:  # fmt: skip
    """The boundary review of a ranking (each pair's gold flag, best first) answered from gold: the
    `n` pairs `boundary_pairs` asks for over the range `decisions` allow (session/boundary.py),
    accepted where gold and rejected otherwise, and D settled from them (session/settled_demand.py)
    starting from the run's `demand`."""
    low, high = demand_range(decisions, len(gold))
    rows = [ProposalRow(k + 1, k, k, "", "", 0.0, 0.0, g) for k, g in enumerate(gold)]
    statuses = [OPEN] * len(gold)
    for row in boundary_pairs(rows, low, high, n):
        statuses[row.rank - 1] = ACCEPTED if row.gold else REJECTED
    return settle_demand(statuses, demand, low, high)


def boundary_figures(result: DecipherResult) -> dict[str, float | int | None] | None:
    """F1 at the run's own D, then after the boundary review (`answer_boundary`) of 10 and 20 pairs,
    the proposals recut where the judgments settle D; beside them F1 at the gold count (the first
    G pairs of the ranking, where it is that long) and each D. The ranking is the run's proposals
    then its pairs past D, as the store holds it. None for a run without gold or whose D the
    judgments do not settle (no range: a given D)."""
    demand = result.decisions.get("demand") or {}
    if result.accuracy is None or demand.get("demand_low") is None or result.config.auto_demand:
        return None
    ranked = result.proposals + result.beyond
    n_gold, d = result.n_evaluated, len(result.proposals)

    def f1(k: int) -> float | None:
        top = ranked[:k]
        return metrics.proposal_scores([p.gold for p in top], n_gold, None, [p.lost for p in top]).f1

    out: dict[str, float | int | None] = {"f1": f1(d), "demand": d, "n_gold": n_gold,
                                          "f1_at_gold": f1(n_gold) if len(ranked) >= n_gold else None}  # fmt: skip
    for n in BOUNDARY_JUDGED:
        settled = answer_boundary([p.gold for p in ranked], d, result.decisions, n)
        out[f"f1_judged_{n}"], out[f"demand_judged_{n}"] = f1(settled.demand), settled.demand
    if n_gold:  # D over the lost words with a gold cognate, before and after, as the accuracy tables give it
        out["ratio"] = d / n_gold
        for n in BOUNDARY_JUDGED:
            out[f"ratio_judged_{n}"] = int(out[f"demand_judged_{n}"] or 0) / n_gold
    return out


def mean_boundary(figures: list[dict[str, Any] | None]) -> dict[str, float] | None:
    """The mean of each boundary figure every one of `figures` has (an average row's); None if any is missing."""
    if not figures or any(f is None for f in figures):
        return None
    keys = [k for k in figures[0] if all(f.get(k) is not None for f in figures)]  # type: ignore[union-attr]
    return {k: fmean(float(f[k]) for f in figures) for k in keys}  # type: ignore[index]
