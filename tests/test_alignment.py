"""Every proposal carries its reading: the best alignment of its pair under the run's own model
(engine/channels/alignment.py), for every method and both channels, whose segments spell the two words."""

from __future__ import annotations

import math

import pytest
import torch

from tui_decipher.engine.channels.alignment import (
    Segment,
    alignment_lines,
    alignment_text,
    attention_path,
    best_path,
    reads_as,
    segments,
)
from tui_decipher.engine.channels.edit import EditChannel
from tui_decipher.engine.channels.pieces import CharacterChannel
from tui_decipher.engine.corpora.charset import Charset
from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
from tui_decipher.engine.corpora.registry import load_corpus
from tui_decipher.engine.methods import run_decipherment
from tui_decipher.engine.run.config import preset

TINY_NEURAL = dict(method="neural", embed_dim=16, hidden_dim=16, n_universal=8, epochs=2, rounds=1, restarts=1)


@pytest.fixture(scope="module")
def syllabary(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("alignment") / "syllabary.cog"
    write_generated(path, GeneratorSpec(kind="syllabary", seed=3, lost_words=60))
    return str(path)


@pytest.mark.parametrize(
    "settings",
    [
        pytest.param(dict(method="channel", channel_kind="pieces", channel_steps=40), id="channel-pieces"),
        pytest.param(dict(method="channel", channel_kind="edit", channel_steps=40), id="channel-edit"),
        pytest.param(TINY_NEURAL, id="neural"),
    ],
)
def test_every_proposal_reads_as_its_two_words(settings) -> None:
    cfg = preset("demo").replace(device="cpu", seed=1, **settings)
    corpus = load_corpus(cfg).corpus
    result = run_decipherment(corpus, cfg)
    assert result.proposals
    for p in result.proposals:
        lost, known = corpus.lost_words[p.lost], corpus.known_words[p.known]
        assert p.alignment, (lost, known)
        assert reads_as(p.alignment, lost, known), (p.alignment, lost, known)
        assert all(0.0 <= s.p <= 1.0 for s in p.alignment)


def test_an_auto_run_on_a_syllabary_reads_signs_as_pieces(syllabary) -> None:
    """auto's proposals carry the pieces channel's reading: a sign over one or two letters."""
    cfg = preset("demo").replace(device="cpu", seed=1, method="auto", corpus=syllabary, lost="", known="")
    corpus = load_corpus(cfg).corpus
    result = run_decipherment(corpus, cfg.replace(**_quick_auto()))
    assert result.proposals
    widths = set()
    for p in result.proposals:
        assert reads_as(p.alignment, corpus.lost_words[p.lost], corpus.known_words[p.known])
        widths |= {len(s.known) for s in p.alignment if s.lost}
    assert 2 in widths  # a syllable sign written from a consonant and a vowel


def _quick_auto() -> dict:
    from tui_decipher.engine.methods import METHODS

    cfg = preset("demo").replace(method="auto")
    return METHODS["auto"].quick_changes(cfg, 40)


# --- the lattice paths ---------------------------------------------------------------------------


def _brute_force_pieces(channel: CharacterChannel, x: list[int], y: list[int]) -> float:
    """The best path's log-probability by enumerating every segmentation of y (drop, one, two, gapped)."""
    action = torch.log_softmax(channel.action, -1).detach()
    one = torch.log_softmax(channel._one_logits(), -1).detach()
    best = -math.inf

    def walk(m: int, k: int, total: float) -> None:
        nonlocal best
        if m == len(y):
            if k == len(x):
                best = max(best, total)
            return
        walk(m + 1, k, total + float(action[y[m], 0]))
        if k < len(x):
            walk(m + 1, k + 1, total + float(action[y[m], 1] + one[y[m], x[k]]))
            if m + 1 < len(y):
                two = torch.log_softmax(channel._two_logits(torch.tensor(y[m]), torch.tensor(y[m + 1])), -1).detach()
                walk(m + 2, k + 1, total + float(action[y[m], 2] + two[x[k]]))
            if m + 2 < len(y):  # a gapped piece: y[m + 1] unwritten
                gap = torch.log_softmax(channel._two_logits(torch.tensor(y[m]), torch.tensor(y[m + 2])), -1).detach()
                walk(m + 3, k + 1, total + float(action[y[m], 3] + gap[x[k]]))

    walk(0, 0, 0.0)
    return best


def test_the_pieces_path_is_the_most_probable_segmentation() -> None:
    torch.manual_seed(0)
    lost, known = Charset("abcdef"), Charset("pqrstu")
    channel = CharacterChannel.build(lost, known, torch.Generator().manual_seed(2), 1.0, 0.0)
    for x, y in [("abc", "pqrst"), ("a", "pq"), ("fed", "utsr"), ("ab", "p")]:
        xi, yi = lost.encode(tuple(x)), known.encode(tuple(y))
        (path,) = channel.best_paths([xi], [yi])
        if len(y) < len(x):  # a symbol needs a letter: no reading
            assert path == []
            continue
        assert sum(lp for _, _, lp in path) == pytest.approx(_brute_force_pieces(channel, xi, yi), abs=1e-5)
        assert reads_as(segments(path, tuple(x), tuple(y)), tuple(x), tuple(y))


def test_the_edit_path_marks_substitutions_insertions_and_deletions() -> None:
    chars = Charset("abcdxyz")
    channel = EditChannel.build(chars, chars, torch.Generator().manual_seed(0), 0.01, 6.0)  # near a copy
    (path,) = channel.best_paths([chars.encode(tuple("abxd"))], [chars.encode(tuple("abcd"))])
    seg = segments(path, tuple("abxd"), tuple("abcd"))
    assert reads_as(seg, tuple("abxd"), tuple("abcd"))
    copied = [s for s in seg if s.lost and s.lost == s.known]
    assert len(copied) == 3  # a, b and d written as themselves; x for c one way or another
    (path,) = channel.best_paths([chars.encode(tuple("abcd"))], [chars.encode(tuple("ab"))])
    assert [(dm, dk) for dm, dk, _ in path].count((0, 1)) == 2  # c and d inserted


def test_best_path_returns_nothing_where_the_end_is_unreachable() -> None:
    assert best_path(2, 1, lambda m, k: [(1, 0, -1.0)] if m else []) == []


def test_the_attention_path_follows_the_heaviest_monotone_cells() -> None:
    lost, known = ("A", "B"), ("k", "o", "s")
    attention = [  # rows k, o, s, end; columns A, B, end
        [0.9, 0.05, 0.05],
        [0.8, 0.1, 0.1],
        [0.1, 0.2, 0.7],
        [0.0, 0.0, 1.0],
    ]
    seg = attention_path(lost, known, attention)
    assert seg == [Segment(("A",), ("k", "o"), pytest.approx(0.72)), Segment(("B",), (), 1.0),
                   Segment((), ("s",), 0.7)]  # fmt: skip
    assert reads_as(seg, lost, known)
    assert attention_path(lost, known, [[0.5]]) == []  # a grid that does not fit the words


def test_alignments_read_as_lines_and_json() -> None:
    seg = [Segment(("𐠕",), ("μ", "η"), 0.91), Segment(("𐠮",), ("τ", "ε"), 0.5), Segment((), ("ς",), 0.25)]
    assert alignment_text(seg) == "𐠕 𐠮 - / μη τε ς"
    top, bottom, probs = alignment_lines(seg)
    assert top.split() == ["𐠕", "𐠮", "-"] and bottom.split() == ["μη", "τε", "ς"]
    assert probs.split() == ["0.91", "0.50", "0.25"]
    assert [Segment.from_json(s.as_json()) for s in seg] == seg
