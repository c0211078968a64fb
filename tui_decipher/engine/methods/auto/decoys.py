"""Words whose answer is known, that auto's D is measured against (demand.py): decoys (known-like
words no lost word is written from), null words (lost-like words with no cognate), the channel's
own cognates, and how far a word lies from the words the probe trained on."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import torch
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from ...channels.protocol import Channel
from ...channels.scoring import channel_log_probs
from ...channels.shortlist import shortlisted
from ...corpora.charset import Charset
from ...corpora.corpus import Word
from ...run.problem import Problem
from ...run.seeds import derive

_START, _END = "\x02", "\x03"  # context padding of the trigram model (never a real symbol)
# Decoy lexicons each word is read against, its win averaged over them: with one, which decoys a
# lexicon happened to draw moved D as much as the held-out words did; eight cut that spread to a
# third (1 / sqrt 8) for eight times the decoys' scoring (docs/demand.md, "Eight decoy lexicons").
DECOY_LEXICONS = 8
NULL_WORDS = 1000  # null words q is measured on (at least as many as held-out words): its error below 1.6 points
DISTANCE_STEP = 0.1  # nearest-word distances compared in tenths of a word's length (edits / longer length)
MIN_PER_DISTANCE = 20  # a distance with fewer null words takes the rate of the nearest distance with enough
# The null words' models, most lost-like first: trigrams, then bigrams and symbol frequencies only
# where the trigrams give too few new words (`null_words`: fewer than the held-out words).
NULL_ORDERS = (2, 1, 0)


def _character_model(words: Sequence[Word], order: int) -> dict[tuple[str, ...], list[str]]:
    """Each context of `order` symbols in `words` (padded) and the symbols that follow it, as often
    as they do: a character model to sample from."""
    follow: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for word in words:
        padded = (*(_START,) * order, *word, _END)
        for k in range(order, len(padded)):
            follow[padded[k - order : k]].append(padded[k])
    return follow


def _draw_new(
    follow: dict[tuple[str, ...], list[str]], order: int, length: int, real: set[Word], rng: random.Random, tries: int
) -> Word | None:  # fmt: skip
    """A word of `length` sampled from a character model (`_character_model`) that is not in `real`,
    or None where `tries` draws gave none."""
    for _try in range(tries):
        letters: list[str] = []
        context: tuple[str, ...] = (_START,) * order
        while len(letters) <= length:
            nxt = rng.choice(follow[context])
            if nxt == _END:
                break
            letters.append(nxt)
            context = (*context[1:], nxt) if order else ()
        candidate = tuple(letters)
        if len(candidate) == length and candidate not in real:
            return candidate
    return None


def _lexicon_like(
    words: Sequence[Word], seed: int, order: int, avoid: Sequence[Word] = (), tries: int = 50
) -> list[Word | None]:  # fmt: skip
    """One word per word of `words`, of its length, sampled from a character model of `words` with
    `order` symbols of context, none of them a word of `words` or of `avoid`; None where `tries`
    draws spelled only such words."""
    follow, real, rng = _character_model(words, order), set(words) | set(avoid), random.Random(seed)
    return [_draw_new(follow, order, len(target), real, rng, tries) for target in words]


def decoy_lexicon(
    known_words: Sequence[Word], seed: int, max_tries: int = 50, avoid: Sequence[Word] = (), order: int = 2
) -> list[Word]:
    """One decoy per known word, of the same length, sampled from a character model of
    `known_words` with `order` symbols of context (2: trigrams; 1: bigrams; 0: symbol frequencies),
    neither itself a known word nor one of `avoid`. Where that model spells only real words of a
    length in `max_tries` draws, the decoy comes from the next lower model, and at last from the
    symbols' frequencies at exactly that length: a long word's trigrams often admit one path, and
    26 of the 584 Italian words of the Romance file came back as themselves, so that a cognate of
    each tied with its decoy (docs/demand.md). A lexicon whose symbols spell no other word of a
    length keeps the known word there."""
    real = set(known_words) | set(avoid)
    first = _lexicon_like(known_words, seed, order, avoid, max_tries)
    if None not in first:
        return [w for w in first if w is not None]
    # The lower models draw from a stream of their own, so that every decoy the first model spells
    # is the same whether or not another word needed them; they are built only where one does.
    lower = random.Random(f"{seed} lower models")
    models = {k: _character_model(known_words, k) for k in range(max(order, 1))}  # the lower ones, and 0
    out: list[Word] = []
    for target, drawn in zip(known_words, first, strict=True):
        for k in range(order - 1, -1, -1):
            if drawn is not None:
                break
            drawn = _draw_new(models[k], k, len(target), real, lower, max_tries)
        if drawn is None:
            # A long word rarely ends at exactly its length: its letters drawn without an end.
            symbols = [c for c in models[0][()] if c != _END]
            for _try in range(max_tries):
                candidate = tuple(lower.choice(symbols) for _ in target)
                if candidate not in real:
                    drawn = candidate
                    break
        out.append(target if drawn is None else drawn)
    return out


def null_words(
    source: Sequence[Word], n: int, seed: int, avoid: Sequence[Word] = (), passes: int = 4, enough: int | None = None
) -> list[Word]:  # fmt: skip
    """Up to `n` lost-language-like words whose answer is known to be "no cognate": drawn from a
    character trigram model of `source` (`_lexicon_like`, one word per source word a pass, up to
    `passes` passes: the probe's training words, so that no held-out word lends its own letters),
    none of them a word of `source` or of `avoid` (every lost and known word: a real word might
    have a cognate), none twice. Where the trigram model runs out of new words before `enough`
    (None: `n`; a list of short words: a syllabary's two or three signs a word leave a trigram
    model little to recombine, and 320 generated words gave 4-10 null words), the words up to `n`
    come from a bigram model, then from the symbols' frequencies (`NULL_ORDERS`), a pass at a time
    until one adds no new word. Where even that can only repeat its words (a list of a few), fewer
    or none."""
    avoided = set(source) | set(avoid)
    drawn: dict[Word, None] = {}
    for model, order in enumerate(NULL_ORDERS):
        for k in range(passes):
            before = len(drawn)
            for word in _lexicon_like(source, derive(seed, "null word pass", k, model), order, avoid):
                if word is not None and word not in avoided:
                    drawn.setdefault(word, None)
            if len(drawn) >= n or len(drawn) == before:
                break
        if len(drawn) >= n or (model == 0 and enough is not None and len(drawn) >= enough):
            break  # enough words, or enough trigram words: no lower model
    words = list(drawn)
    return random.Random(seed).sample(words, min(n, len(words)))


def trigram_enough(n_source: int, n_held: int, n: int) -> int:
    """How many null words the trigram model must give before no lower model is drawn from
    (`null_words`' `enough`): as many as there are held-out words (q never rests on fewer words than
    p), and as many as its source words (the probe's training words), up to the `n` asked for. A
    trigram model that, in its passes over its source, recombines fewer new words than it has
    source words has little to recombine: its new words are near copies of the source (one sign
    changed), and they fit the probe that trained on those very words almost as the words themselves
    do: q then reads as high as the held-out words' rate, and D falls to its floor (a short
    syllabary's, docs/demand.md)."""
    return max(n_held, min(n_source, n))


def nearest_distances(words: Sequence[Word], reference: Sequence[Word]) -> np.ndarray:
    """(n,) each word's distance to its nearest word of `reference`: edits over the longer word's
    length (rapidfuzz's normalized Levenshtein distance, symbol by symbol); 1.0 with no reference."""
    if not reference:
        return np.ones(len(words))
    code: dict[str, str] = {}
    for w in (*words, *reference):
        for symbol in w:
            code.setdefault(symbol, chr(0xF0000 + len(code)))  # one character a symbol (a private-use plane)
    spell = lambda ws: ["".join(code[s] for s in w) for w in ws]  # noqa: E731
    return cdist(spell(words), spell(reference), scorer=Levenshtein.normalized_distance, dtype=np.float32).min(1)


def chance_at_distances(null_wins: np.ndarray, null_distance: np.ndarray, held_distance: np.ndarray) -> float:
    """q for the held-out words: the null words' win rate (`null_wins` (n_null,) of 0, 1/2, 1) among
    those as far from the training words as each held-out word is (`nearest_distances`, in steps of
    DISTANCE_STEP; a step with fewer than MIN_PER_DISTANCE null words takes the nearest step's with
    enough), averaged over the held-out words. Their plain rate where no step has enough (at least
    one null word is given)."""
    null_step = np.rint(null_distance / DISTANCE_STEP).astype(int)
    steps = [k for k in np.unique(null_step) if (null_step == k).sum() >= MIN_PER_DISTANCE]
    if not steps or not len(held_distance):
        return float(null_wins.mean())
    rate = {k: float(null_wins[null_step == k].mean()) for k in steps}
    held_step = np.rint(held_distance / DISTANCE_STEP).astype(int)
    return float(np.mean([rate[min(steps, key=lambda k: (abs(k - h), k))] for h in held_step]))


def synthetic_cognates(
    channel: Channel, known_words: Sequence[Word], lost_charset: Charset, known_charset: Charset, n: int, seed: int
) -> list[Word]:
    """`n` lost words written by the channel, x ~ P(x | y), each from a known word drawn at
    random (their answer is known: cognates by construction); empty draws are dropped."""
    generator = torch.Generator().manual_seed(seed)
    rng = random.Random(seed)
    out: list[Word] = []
    for _ in range(n):
        known = known_words[rng.randrange(len(known_words))]
        written = channel.sample(known_charset.encode(known), generator)
        if written:
            out.append(tuple(lost_charset.symbols[i] for i in written))
    return out


def decoy_lexicons(known_words: Sequence[Word], seed: int, n_lexicons: int) -> list[Word]:
    """`n_lexicons` decoy lexicons (`decoy_lexicon`, each from its own seed of the "auto decoys"
    stream, the first the one a single lexicon was), one after another: n_lexicons x n_known words."""
    return [word for k in range(n_lexicons) for word in decoy_lexicon(known_words, derive(seed, "auto decoys", k))]


def lexicon_count(n_lost: int, n_known: int) -> int:
    """How many decoy lexicons a run's words are read against (`DECOY_LEXICONS`): one on a long
    list (`shortlisted`: the full Ugaritic list), whose 1000 held-out words and 1000 null words
    each against 39451 decoys already take most of its scoring."""
    return 1 if shortlisted(n_lost, n_known) else DECOY_LEXICONS


def against_decoys(
    problem: Problem, channel: Channel, lost: Sequence[Word], decoys: Sequence[Word]
) -> tuple[torch.Tensor, torch.Tensor]:
    """A channel's log P(x | y) of `lost` words against the known words, (n, n_known), and each
    decoy lexicon's best (`decoys`: lexicons of n_known words one after another,
    `decoy_lexicons`), (n, n_lexicons, 1): `demand.word_wins` reads a word's win against each."""
    cs = (problem.lost_charset, problem.known_charset)
    n_known = len(problem.corpus.known_words)
    real = channel_log_probs(channel, lost, problem.corpus.known_words, *cs)
    best = [channel_log_probs(channel, lost, decoys[k : k + n_known], *cs).max(1).values
            for k in range(0, len(decoys), n_known)]  # fmt: skip
    return real, torch.stack(best, 1)[:, :, None]
