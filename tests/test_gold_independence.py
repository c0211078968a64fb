"""Gold is for evaluation only: every method, run on a corpus and on the same corpus with its gold
removed, gives the same proposals, losses and objective (only the accuracy figures differ).

A leak of gold into training or the flow (even one that keeps the flow's total mass) changes what
a method learns or proposes, so these comparisons fail on it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tui_decipher.engine.corpora.corpus import Corpus, read_cog
from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
from tui_decipher.engine.corpora.registry import load_corpus
from tui_decipher.engine.methods import METHODS, run_decipherment
from tui_decipher.engine.run.config import DecipherConfig, preset

SETTINGS = {
    # The paper's EM, with a channel-seeded round 1 and the expected edit distance in round 2.
    "neural": dict(embed_dim=16, hidden_dim=16, n_universal=8, rounds=2, epochs=15, warmup_rounds=1,
                   init_flow="channel", channel_steps=10),
    # The channel alone, on the transport plan (which reads D and C, never gold).
    "channel": dict(channel_steps=15, channel_objective="transport", channel_kind="edit"),
    # Auto decides the channel, D and C itself; a short step budget, for speed (at 20 steps its
    # probe has not read the demo's script yet and, rightly, proposes a few pairs only).
    "auto": dict(auto_steps=40),
}  # fmt: skip


def _outcome(result) -> tuple:
    proposals = [(p.lost, p.known, p.score, p.cost, p.alternatives) for p in result.proposals]
    rounds = [(m.loss, m.nll, m.reg, m.flow_cost, m.flow, m.kept_previous) for m in result.rounds]
    return proposals, rounds, result.objective, result.restart_objectives, result.char_map, result.decisions


@pytest.mark.parametrize("method", sorted(METHODS))
def test_removing_gold_changes_nothing_but_the_accuracy(method, single_thread) -> None:
    assert set(SETTINGS) == set(METHODS)  # a new method must be added here
    cfg: DecipherConfig = preset("demo").replace(method=method, device="cpu", **SETTINGS[method])
    corpus = load_corpus(cfg).corpus
    blind = dataclasses.replace(corpus, gold={})
    assert corpus.has_gold and not blind.has_gold
    seen = run_decipherment(corpus, cfg)
    unseen = run_decipherment(blind, cfg)
    assert seen.accuracy is not None and unseen.accuracy is None
    assert all(p.gold is not None for p in seen.proposals) and all(p.gold is None for p in unseen.proposals)
    assert _outcome(seen) == _outcome(unseen)
    assert len(seen.proposals) >= 40  # enough pairs for the comparison to mean something


# --- auto's paths, on corpora whose word order says nothing ------------------------------------

# Each of auto's paths: a generated corpus that takes it, and a leak planted on that path alone
# (module, function, how the leak bends its arguments where gold is present), which the
# comparison must catch: proof that the path ran and that the test would see a leak there.
AUTO_PATHS = {
    # One alphabet: the edit channel, and a reverse channel writing the known words from the lost.
    "edit, reverse channel": (GeneratorSpec("shared-alphabet", seed=5, lost_words=60), "fitting", "_train_reverse"),
    # Two scripts, a cipher: the pieces channel without the syllable search, then the edit channel
    # through its map (reading.py); the leak in `_train` reaches both.
    "pieces": (GeneratorSpec("substitution", seed=5, lost_words=60), "fitting", "_train"),
    # A syllabary: the pieces channel started from the syllable search's map.
    "pieces, syllable search": (GeneratorSpec("syllabary", seed=5, lost_words=60), "syllable_search", "search_starts"),
    # A known list 20 times the lost one, trained through shortlists (their threshold lowered here).
    "shortlists": (GeneratorSpec("large-known", seed=5, lost_words=40, known_ratio=20.0), "trainer",
                   "draw_shortlist"),
}  # fmt: skip


def _permuted(corpus: Corpus, seed: int) -> Corpus:
    """The corpus with its lost and known words each in a random order (gold re-indexed): a file's
    rows put a lost word beside its cognate, and an order that says so must not help."""
    rng = np.random.default_rng(seed)
    lost_order, known_order = rng.permutation(len(corpus.lost_words)), rng.permutation(len(corpus.known_words))
    new_lost = {int(old): new for new, old in enumerate(lost_order)}
    new_known = {int(old): new for new, old in enumerate(known_order)}
    return dataclasses.replace(
        corpus, lost_words=tuple(corpus.lost_words[i] for i in lost_order),
        known_words=tuple(corpus.known_words[j] for j in known_order),
        gold={new_lost[i]: frozenset(new_known[j] for j in g) for i, g in corpus.gold.items()},
    )  # fmt: skip


def _plant(monkeypatch, module: str, name: str, gold: dict) -> None:
    """Bend `name` in `module` where `gold` (the running corpus's, set by the caller) is not empty."""
    from tui_decipher.engine.channels import trainer
    from tui_decipher.engine.methods.auto import fitting, syllable_search

    where = {"fitting": fitting, "syllable_search": syllable_search, "trainer": trainer}[module]
    original = getattr(where, name)

    def leaky(*args, **kwargs):
        if not gold:
            return original(*args, **kwargs)
        if name == "_train_reverse":  # one step fewer
            problem, demand, steps, done, *rest = args
            return original(problem, demand, steps - 1, done, *rest)
        if name == "_train":  # another random stream
            return original(*args[:4], args[4] + 1, *args[5:], **kwargs)
        if name == "search_starts":  # other starts
            return original(args[0], args[1], [s + 1 for s in args[2]], *args[3:], **kwargs)
        cols = original(*args, **kwargs)  # draw_shortlist: each lost word's gold word listed last
        for i, known in gold.items():
            if i < cols.shape[0] and known:
                cols[i, -1] = min(known)
        return cols

    monkeypatch.setattr(where, name, leaky)


def _auto_outcomes(corpus: Corpus, gold: dict, path: str, monkeypatch) -> tuple[tuple, tuple]:
    """auto's outcome on `corpus` and on it without gold; `gold` is what a planted leak sees."""
    if path == "shortlists":
        from tui_decipher.engine.channels import shortlist

        monkeypatch.setattr(shortlist, "SHORTLIST_ABOVE", 1000)
        monkeypatch.setattr(shortlist, "SHORTLIST_SIZE", 16)
    cfg = DecipherConfig(method="auto", device="cpu", seed=3, auto_steps=60)
    gold.update(corpus.gold)
    seen = run_decipherment(corpus, cfg)
    gold.clear()
    unseen = run_decipherment(dataclasses.replace(corpus, gold={}), cfg)
    assert seen.accuracy is not None and unseen.accuracy is None
    return _outcome(seen), _outcome(unseen)


@pytest.mark.parametrize("path", AUTO_PATHS)
def test_every_path_of_auto_reads_no_gold_and_a_leak_planted_there_is_caught(path, tmp_path, monkeypatch,
                                                                             single_thread) -> None:  # fmt: skip
    spec, module, name = AUTO_PATHS[path]
    corpus = _permuted(read_cog(write_generated(tmp_path / "c.cog", spec).path), seed=11)
    seen, unseen = _auto_outcomes(corpus, {}, path, monkeypatch)
    assert seen == unseen
    line = seen[-1]["line"]
    assert {
        "edit, reverse channel": "both directions",
        # A cipher: the pieces channel's map, then the words read again through it as one alphabet.
        "pieces": "read again as one alphabet",
        "pieces, syllable search": "signs searched as syllables",
        "shortlists": "read again as one alphabet",
    }[path] in line
    if path == "pieces":
        assert "syllables" not in line
    gold: dict = {}
    _plant(monkeypatch, module, name, gold)
    leaked, blind = _auto_outcomes(corpus, gold, path, monkeypatch)
    assert leaked != blind  # the planted leak changes what auto proposes: the comparison sees it
    assert blind == unseen  # without gold the plant does nothing
