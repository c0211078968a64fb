"""Before any probe, on a syllabary: the sign map searched as a whole from random starts, and
whether a start found it, found it alone, or cannot be told from chance (`_Syllables`)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from typing import Any

import torch

from ...channels.syllable_starts import search_starts
from ...channels.syllables import SyllableMap, planted_gain, value_units
from ...corpora.vowels import known_vowels
from ...run.events import ChannelStep
from ...run.problem import Problem, RunCancelled
from ...run.seeds import derive
from .schedule import SyllableSearch

# Two searched maps that send this share of the known words' syllables to the same signs found one
# map: chance maps share a few percent, maps that found a generated syllabary's key over 90%.
AGREEMENT = 0.5
# A map that only one start found is tried where it explains the lost words by at least this many
# nats a word beyond the signs' frequencies: between what maps that found a key and chance maps
# gain (docs/experiments.md, "A syllable map that one search start alone found"). It only spares a
# probe: the probes' held-out evidence decides.
SINGLE_MAP_GAIN = 0.25
# The search stops after its first starts where none agree, even the weakest explains the lost
# words at least CHANCE_SHARE as well as a true map would (`planted_gain`), and none explains them
# more than CHANCE_SPREAD times as well as the weakest: chance maps then reach a true map's gain and
# look alike, so no start can be told from chance, and more starts do not agree. Both read between
# chance starts and starts that found the map on generated tuning syllabaries (docs/experiments.md,
# "A small syllabary's search stops where no start can be told from chance").
CHANCE_SHARE = 0.7
CHANCE_SPREAD = 1.5


@dataclass(frozen=True)
class _Syllables:
    """The syllable search's kept map and every start's evidence."""

    map: SyllableMap
    starts: list[dict[str, Any]]
    # Where the search stopped because its starts explain the words as well as a true map would
    # (CHANCE_SHARE): that map's gain (`planted_gain`); None where it did not stop for that.
    chance_of: float | None = None

    @property
    def chance(self) -> bool:
        """Whether no start can be told from chance: too few lost words to pin a sign map."""
        return self.chance_of is not None

    @property
    def used(self) -> bool:
        """Whether channels start from the map: only where two starts found one map (a map no other
        start reproduces is partly chance: on Linear B five such maps each read part of it) and it
        explains the lost words better than their signs' own frequencies do (a gain above 0)."""
        return self.agreed and self.map.gain > 0

    @property
    def agreed(self) -> bool:
        return any(s["agrees"] for s in self.starts)

    @property
    def single(self) -> bool:
        """Whether the kept map is one that no other start reproduced but that explains the lost words
        well (SINGLE_MAP_GAIN): on a large list a start finds the map rarely, so one may be alone, and
        a partial map looks the same (Linear B). It is not trusted as `used` is; the first probe is
        trained from it and from a random start, and its held-out evidence decides (`AutoMethod._probe`)."""
        return not self.agreed and not self.chance and self.map.gain >= SINGLE_MAP_GAIN

    @property
    def why(self) -> str:
        vowels = "".join(self.map.vowels)
        spelling = self.map.spelling.describe()
        if self.map.tails:  # digraphs' second letters (syllables.digraph_tails), read with the consonant before
            spelling += f"; {', '.join(sorted(self.map.tails))} read as part of the consonant before it"
        gain = f"{self.map.gain:.2f} nats a word beyond the signs' frequencies (vowels {vowels}; {spelling})"
        tried = f"of {len(self.starts)} maps ({'two agree' if self.agreed else 'none agree'})"
        if self.chance:
            gains = [s["gain"] for s in self.starts]
            return (f"signs searched as syllables, no map can be told from chance: {tried} all explain "
                    f"{min(gains):.2f}-{max(gains):.2f} nats a word, a true map about {self.chance_of:.2f} (too "
                    "few lost words to pin a sign map; known sign values would)")  # fmt: skip
        if self.single:
            return (f"signs searched as syllables: {tried} the best explains the lost words {gain}; one start "
                    "alone found it, so the probe is trained from it and from a random start")  # fmt: skip
        if not self.used:
            return f"signs searched as syllables, no map found: {tried} the best explains {gain}"
        return f"signs searched as syllables: {tried} the best explains the lost words {gain}"

    def as_dict(self) -> dict[str, Any]:
        chance = {"planted_gain": round(self.chance_of, 4)} if self.chance_of is not None else {}
        return {**self.map.as_dict(), "starts": self.starts, "used": self.used, **chance, "why": self.why}


def _search_syllables(
    problem: Problem, search: SyllableSearch, found_before: list[SyllableMap] | None = None,
    on_map: Callable[[list[SyllableMap]], None] | None = None,
) -> _Syllables:  # fmt: skip
    """The syllable search (`SyllableSearch`): anneal from each start, keep the map of highest
    log-likelihood, reporting its moves as steps (MOVES_A_STEP a step) from the first. The
    scholar's known sign values, where given, hold their units' signs in every start.
    `found_before`: the maps of the first starts, found by a run that was stopped (they are not
    searched again); `on_map(maps so far)` after each start."""
    cfg, corpus = problem.cfg, problem.corpus
    steps_each = search.steps_each
    values = [(v.lost, v.known) for v in problem.signs.values] if problem.signs else []
    fixed = value_units(values, known_vowels(corpus.known_words)) if values else None
    maps: list[SyllableMap] = list(found_before or [])
    chance_of: float | None = None  # where the starts are at chance level: a true map's gain (`planted_gain`)
    last = [len(maps) * steps_each]

    def on_progress(moves: int, loss: float) -> None:
        step = (moves + len(found_before or []) * search.moves) * steps_each // search.moves
        if step > last[0]:  # a step at a time, as the channel reports them
            for s in range(last[0] + 1, step + 1):
                problem.on_event(ChannelStep(0, s, cfg.channel_steps, loss, problem.elapsed(), "syllables"))
            last[0] = step

    def enough() -> bool:
        """Whether the starts taken so far settle the search (sets `chance_of` where at chance)."""
        nonlocal chance_of
        k = len(maps)
        if k >= search.starts and any(_agreeing(maps)):
            return True
        if k == search.starts and fixed is None:  # a scholar's values pin the map: starts are not chance there
            planted = planted_gain(corpus.lost_words, corpus.known_words, cfg.seed)
            if _chance_level([m.gain for m in maps], planted):
                chance_of = planted
                return True
        return False

    seeds = [derive(cfg.seed, "syllable starts", k) for k in range(search.max_starts)][len(maps) :]
    # The threads the run computes with: its settings', or else torch's, which the front end set to
    # the run's share of the cores (beside other runs, and a core left to a live screen).
    workers = cfg.threads or torch.get_num_threads()
    with problem.timer("syllables"), closing(search_starts(
        corpus.lost_words, corpus.known_words, seeds, search.moves, workers, should_stop=problem.cancel.is_set,
        on_progress=on_progress, fixed=fixed,
    )) as starts:  # fmt: skip
        if not (maps and enough()):
            for found in starts:
                if found is None:
                    raise RunCancelled()
                maps.append(found)
                if on_map is not None:
                    on_map(maps)
                if enough():  # the starts taken so far: is another needed?
                    break
    kept, agrees = kept_syllable_map(maps)
    start_rows = [
        {"start": k, "gain": round(m.gain, 4), "agrees": a, "kept": k == kept}
        for k, (m, a) in enumerate(zip(maps, agrees, strict=True))
    ]
    return _Syllables(maps[kept], start_rows, chance_of)


def _chance_level(gains: list[float], planted: float) -> bool:
    """Whether search starts of these gains can none be told from chance, where a true map would
    gain `planted`: even the weakest reaches CHANCE_SHARE of it, and none stands out from the weakest
    by more than CHANCE_SPREAD (a start that found the map does)."""
    weakest = min(gains)
    return weakest >= CHANCE_SHARE * planted and max(gains) <= CHANCE_SPREAD * weakest


def kept_syllable_map(maps: list[SyllableMap]) -> tuple[int, list[bool]]:
    """(the kept map, whether each map agrees with another): the map that explains the lost words
    best among those another start reproduced, or among all where none was."""
    agrees = _agreeing(maps)
    candidates = [k for k in range(len(maps)) if agrees[k]] or list(range(len(maps)))
    return max(candidates, key=lambda k: maps[k].log_likelihood), agrees


def _agreeing(maps: list[SyllableMap]) -> list[bool]:
    """For each map, whether another agrees with it (AGREEMENT)."""
    return [any(a.agreement(b) >= AGREEMENT for j, b in enumerate(maps) if j != k) for k, a in enumerate(maps)]
