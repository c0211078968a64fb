"""Decipherment methods: one module each, one line each in `METHODS`.

- `neural_em`: the paper's neural EM (Luo, Cao and Barzilay 2019);
- `channel`: beyond the paper, a character channel alone (engine/channels/);
- `auto`: chooses the channel, the demand D and the capacity C from the word lists, then deciphers.

`run_decipherment` and `refine_decipherment` are the engine's entry points for every front end:
they pick the method by the config's `method` field, so no front end names one.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

from ..constraints.review import ReviewConstraints
from ..constraints.sign_values import SignValues
from ..corpora.corpus import Corpus, CorpusError
from ..run.checkpoint import Checkpoint, CheckpointError
from ..run.config import DecipherConfig
from ..run.events import EventCallback, ignore
from .auto import AutoMethod
from .base import DecipherResult, Fitted, Method, PairScores, Proposal, RoundMetrics
from .channel import ChannelAlone
from .neural_em import NeuralEM

METHODS: dict[str, Method] = {m.name: m for m in (AutoMethod(), NeuralEM(), ChannelAlone())}

__all__ = [
    "METHODS",
    "DecipherResult",
    "Fitted",
    "Method",
    "PairScores",
    "Proposal",
    "RoundMetrics",
    "char_map_source",
    "check_refine",
    "check_resume",
    "describe_refinement",
    "describe_run",
    "method_for",
    "refine_decipherment",
    "run_decipherment",
]  # fmt: skip


def method_for(name: str) -> Method:
    """The method a config's `method` names (config validation keeps it one of METHODS)."""
    return METHODS[name]


# A demand at most this much above what the flow can carry is lowered with a warning, not refused:
# the columns of a cognate table often differ by a word or two (romance: 584 es, 583 pt words), and
# cognate_fraction 1.0 means "as many as there are".
DEMAND_SLACK = 0.05


def check_demand(corpus: Corpus, cfg: DecipherConfig) -> str | None:
    """Refuse a config that asks for more cognate pairs than the corpus can supply.

    The run seeks N = round(cognate_fraction x lost words) pairs, each known word taking at most
    `capacity` lost words, so N above capacity x known words cannot be met. More than
    DEMAND_SLACK above it raises a CorpusError naming the corpus file and the settings that fix
    it; a smaller excess returns a warning (the run then seeks capacity x known words). A method
    that decides D and C itself (auto) is not checked.
    """
    if method_for(cfg.method).decides_demand:
        return None
    n_lost, n_known = len(corpus.lost_words), len(corpus.known_words)
    asked = round(cfg.cognate_fraction * n_lost)
    supply = cfg.capacity * n_known
    if asked <= supply:
        return None
    lost = "lost" if corpus.lost_code == "lost" else f"lost ({corpus.lost_code})"
    known = "known" if corpus.known_code == "known" else f"known ({corpus.known_code})"
    what = (
        f"cognate_fraction {cfg.cognate_fraction:g} x {n_lost} {lost} words asks for {asked} cognate pairs, "
        f"but {n_known} {known} words at capacity {cfg.capacity} can take at most {supply}"
    )
    if asked <= supply * (1 + DEMAND_SLACK):
        return f"{corpus.source or corpus.name}: {what}; seeking {supply}"
    max_fraction = math.floor(1000 * supply / n_lost) / 1000
    fix = f"set cognate_fraction to at most {max_fraction:g}" if max_fraction >= 0.001 else "lower cognate_fraction"
    fix += f" or capacity to at least {math.ceil(asked / n_known)}"
    raise CorpusError(corpus.source or corpus.name, 1 if corpus.format == "cog" else None, f"{what}; {fix}")


def describe_run(config: dict[str, Any], decisions: dict[str, Any] | None = None) -> str:
    """One line on how a stored run deciphered: what it decided, for a method that decides its own
    settings (auto) and has finished deciding, else its method's line from the config (a run
    stored before `method` existed was neural)."""
    if decisions and decisions.get("line"):
        return str(decisions["line"])
    return method_for(config.get("method", "neural")).describe(config)


def describe_refinement(decisions: dict[str, Any] | None) -> str | None:
    """One line on how much a channel refinement's accepted pairs weighed and why (see
    `refinement.overruled_share`), or that auto fitted the run again under pinned sign values (its
    `refit_under`); None for a run that no such refinement made."""
    weight = (decisions or {}).get("refinement")
    if not weight:
        return None
    grown = weight.get("demand")  # pairs accepted past D added to it (`refinement.judged_demand`)
    added = f"; D {grown['before']} -> {grown['after']}: pairs accepted past D" if grown else ""
    if "refit" in weight:
        if "kept_demand" in weight:
            return (f"fitted again under {weight['refit']} sign value(s): the run's syllable map and channel were "
                    "made without values now pinned, so the map was searched again under them and its probes "
                    f"trained from it, D = {weight['kept_demand']} kept from the run{added}")  # fmt: skip
        if weight.get("map_found", weight.get("map_held")):  # "map_held": a refit made before D was kept
            return (f"fitted again under {weight['refit']} sign value(s): the run's channel was held to a syllable "
                    "map searched without values now pinned, so the map was searched again under them"
                    f"{added}")  # fmt: skip
        return (f"fitted again under {weight['refit']} sign value(s): the run's syllable search had found no map "
                f"it could tell from chance, and values it lacked were pinned{added}")  # fmt: skip
    return (
        f"accepted pairs weighed {100 * weight['sure_share']:.0f}% of each step: the flow overruled "
        f"{100 * weight['overruled']:.0f}% of the channel's best readings (unjudged words; at most 50%){added}"
    )


def char_map_source(config: dict[str, Any]) -> str:
    """Where a stored run's character map comes from, in a few words."""
    return method_for(config.get("method", "neural")).char_map_source(config)


def run_decipherment(
    corpus: Corpus,
    cfg: DecipherConfig,
    on_event: EventCallback = ignore,
    cancel: threading.Event | None = None,
    checkpoint: str | Path | None = None,
    resume: Checkpoint | None = None,
    review: ReviewConstraints | None = None,
) -> DecipherResult:
    """Decipher `corpus` with the method `cfg.method` names; the entry point for the CLI and the TUI.

    It reports progress through `on_event` and stops soon after `cancel` is set, keeping what it
    completed. With `checkpoint`, progress is saved there; `resume` (a checkpoint of the same
    settings and corpus) continues from it and reaches the same result as an uninterrupted run.
    `review`: judgments known from the start (accepted pairs fixed, rejected ones removed).
    """
    cfg.validate()
    method_for(cfg.method).check(corpus, cfg)
    if resume is not None:
        check_resume(corpus, cfg, resume)
    if review is not None:
        review.check(len(corpus.lost_words), len(corpus.known_words))
    path = Path(checkpoint) if checkpoint is not None else None
    return method_for(cfg.method).fit(corpus, cfg, on_event, cancel or threading.Event(), path, resume, review)


def refine_decipherment(
    corpus: Corpus,
    start: Checkpoint,
    review: ReviewConstraints,
    rounds: int,
    on_event: EventCallback = ignore,
    cancel: threading.Event | None = None,
    checkpoint: str | Path | None = None,
    draw: int = 0,
    signs: SignValues | None = None,
) -> DecipherResult:
    """Continue a run from its checkpoint for `rounds` more rounds under the reviewer's judgments
    (accepted pairs fixed, rejected ones removed); settings come from the checkpoint. `draw`: the
    refinement's random stream (0: the run's own; see `Method.refine`). `signs`: sign values the
    decipherer pinned (checked against the corpus: `sign_values.checked_sign_values`)."""
    check_refine(corpus, start, review, rounds, draw)
    path = Path(checkpoint) if checkpoint is not None else None
    return method_for(start.method).refine(
        corpus, start, review, rounds, on_event, cancel or threading.Event(), path, draw, signs
    )


def check_resume(corpus: Corpus, cfg: DecipherConfig, start: Checkpoint) -> None:
    """Raise (CheckpointError, ValueError) where `start` cannot continue as a run of `cfg` on
    `corpus`: only the run it came from (same settings, same corpus), not yet finished or refined.
    A front end calls it before it marks the run running, so a refusal changes nothing."""
    _known_method(start)
    if start.refined:
        raise CheckpointError("this run has been refined; continue it with --refine, not --resume")
    saved = start.settings()
    if saved != cfg:
        changed = [k for k, v in saved.to_dict().items() if getattr(cfg, k) != v]
        raise CheckpointError(f"checkpoint was made with other settings ({', '.join(changed)})")
    start.check_corpus(corpus.name, (len(corpus.lost_words), len(corpus.known_words)))
    method_for(start.method).check_resume(start)


def check_refine(corpus: Corpus, start: Checkpoint, review: ReviewConstraints, rounds: int, draw: int = 0) -> None:
    """Raise (CheckpointError, ValueError) where `start` cannot be refined on `corpus` under
    `review` for `rounds` rounds; called before the run is marked running, as `check_resume` is."""
    if not 1 <= rounds <= 1000:
        raise ValueError(f"refinement rounds = {rounds} is out of range (allowed 1..1000)")
    if draw < 0:
        raise ValueError(f"refinement draw = {draw} is out of range (allowed 0 and up)")
    _known_method(start)
    start.settings()
    start.check_corpus(corpus.name, (len(corpus.lost_words), len(corpus.known_words)))
    review.check(len(corpus.lost_words), len(corpus.known_words))
    method_for(start.method).check_refine(start)


def _known_method(start: Checkpoint) -> None:
    if start.method not in METHODS:
        raise CheckpointError(f"the checkpoint names no method of this version ({start.method!r})")
