"""No crash on real words: the syllable search's model and every channel build and score on every
real list in ../shared/corpora (dev/ included), under every spelling, finals written or not.

Generated words never end in the clusters real ones do: at 484b4f0 the syllable model failed on 9
of these lists with finals written (`KeyError: ('k', '#')`, Romance; `('ŋ', '#')`, Irish-Gaelic...),
as it did on a real Cypriot-Greek list."""

from __future__ import annotations

import pytest
import torch

from tui_decipher.engine.channels import syllables
from tui_decipher.engine.channels.scoring import channel_log_probs
from tui_decipher.engine.channels.spelling import Spelling
from tui_decipher.engine.channels.syllables import SyllableModel
from tui_decipher.engine.channels.trainer import CHANNEL_KINDS, new_channel
from tui_decipher.engine.corpora.charset import Charset
from tui_decipher.engine.corpora.corpus import read_cog
from tui_decipher.engine.corpora.encipher import SYLLABIC, encipher
from tui_decipher.engine.methods import run_decipherment
from tui_decipher.engine.run.config import DecipherConfig

SPELLINGS = [Spelling(clusters, finals) for clusters in (0.0, 0.5, 1.0) for finals in (0.0, 1.0)]
LOST, KNOWN = 200, 2000  # words of each side read (the full Ugaritic list has 39,451 known words)


def _lists(shared_corpora):
    files = sorted(shared_corpora.glob("*.cog")) + sorted((shared_corpora / "dev").glob("*.cog"))
    assert len(files) >= 20, files  # the six benchmark files and the sixteen dev pairs
    return files


def test_the_syllable_model_builds_on_every_real_list_under_every_spelling(shared_corpora, monkeypatch) -> None:
    for path in _lists(shared_corpora):
        corpus = read_cog(path)
        for spelling in SPELLINGS:
            monkeypatch.setattr(syllables, "fit_spelling", lambda lengths, lost, s=spelling: s)
            model = SyllableModel.build(corpus.lost_words[:LOST], corpus.known_words[:KNOWN])
            units = set(model.readings.units)
            assert units and all(u in model.readings.unit_id for u in units), path.name
            assert spelling.finals or not any(u[1] == syllables.FINAL for u in units), path.name


@pytest.mark.parametrize("kind", sorted(CHANNEL_KINDS))
def test_every_channel_builds_and_scores_on_every_real_list(shared_corpora, kind, single_thread) -> None:
    for path in _lists(shared_corpora):
        corpus = read_cog(path)
        lost, known = corpus.lost_words[:20], corpus.known_words[:20]
        lost_cs, known_cs = Charset.from_words(corpus.lost_words), Charset.from_words(corpus.known_words)
        for gaps in (False, True):
            channel = new_channel(kind, lost_cs, known_cs, torch.Generator().manual_seed(0), 0.5, 2.0, [],
                                  torch.device("cpu"), gaps)  # fmt: skip
            log_p = channel_log_probs(channel, lost, known, lost_cs, known_cs)
            assert log_p.shape == (len(lost), len(known)) and torch.isfinite(log_p).all(), (path.name, kind, gaps)


@pytest.mark.parametrize("syllabic", SYLLABIC)
def test_the_syllable_model_builds_on_every_dev_pair_written_as_a_syllabary(shared_corpora, tmp_path,
                                                                            syllabic) -> None:  # fmt: skip
    """Real words in a syllabary (`decipher corpus encipher --as`), the spelling fitted as auto
    fits it: 484b4f0's model failed on Irish-Gaelic, Swedish-Danish and Ge'ez-Tigrinya written
    with dead vowels (`KeyError: ('ŋ', '#')` ...), as on the real Cypriot list."""
    for path in sorted((shared_corpora / "dev").glob("*.cog")):
        written = tmp_path / f"{path.stem}.{syllabic}.cog"
        written.write_text(encipher(path, seed=1, syllabic=syllabic).text, encoding="utf-8")
        corpus = read_cog(written)
        model = SyllableModel.build(corpus.lost_words, corpus.known_words)
        assert model.readings.units, path.name


def test_auto_reads_real_words_written_with_dead_vowels(shared_corpora, tmp_path, single_thread) -> None:
    """The Cypriot-like case on real words, end to end: Ge'ez (its 96 lost words) written a sign a
    syllable, every final consonant with a sign of its own, against Tigrinya; auto searches its
    signs as syllables and proposes pairs (a short schedule: this is the no-crash check)."""
    written = tmp_path / "gez-tir.dead-vowel.cog"
    written.write_text(encipher(shared_corpora / "dev" / "kitchen-gez-tir.cog", seed=1, syllabic="dead-vowel").text,
                       encoding="utf-8")  # fmt: skip
    corpus = read_cog(written)
    result = run_decipherment(corpus, DecipherConfig(method="auto", device="cpu", seed=1, auto_steps=60, threads=1))
    assert result.status == "finished" and result.proposals
    assert "syllables" in result.decisions and result.decisions["channel_kind"] == "pieces"
