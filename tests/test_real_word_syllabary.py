"""Real words in a generated syllabary (`decipher corpus generate syllabary|dead-vowel --words FILE`):
the known side is the word list, the lost side its words a sign a syllable, read back by the key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tui_decipher.cli import app
from tui_decipher.engine.corpora.corpus import graphemes, read_cog, read_cog_table
from tui_decipher.engine.corpora.generators import GeneratorSpec, generate, syllabary_key_text
from tui_decipher.engine.corpora.vowels import known_vowels
from tui_decipher.engine.methods import run_decipherment
from tui_decipher.engine.run.config import DecipherConfig


@pytest.fixture
def greek_words(shared_corpora: Path, tmp_path: Path) -> Path:
    """The Greek words of the Linear B file, one per line: a real word list with real finals."""
    table = read_cog_table(shared_corpora / "linear_b-greek.cog")
    words = sorted({"".join(w) for row in table.rows for w in row[1]})
    path = tmp_path / "greek.txt"
    path.write_text("\n".join(words) + "\n", encoding="utf-8")
    return path


def _cognates(rows) -> list[tuple[str, str]]:
    return [(lost, known) for lost, known in rows if lost != "_" and known != "_"]


@pytest.mark.parametrize("kind", ["syllabary", "dead-vowel"])
def test_the_lost_words_are_the_known_words_a_sign_a_syllable(greek_words: Path, kind: str) -> None:
    out = generate(GeneratorSpec(kind=kind, seed=3, lost_words=300, words=greek_words, noise=0.0))
    assert (out.n_lost, out.n_cognates, out.n_known) == (300, 180, 525)  # the kind's share and ratio
    listed = set(greek_words.read_text(encoding="utf-8").split())
    assert all(known in listed for _, known in out.rows if known != "_")
    vowels = known_vowels([graphemes(w) for w in listed])
    dead = re.search(r"the dead vowel (\S+)", " ".join(out.laws))
    assert (dead is not None) == (kind == "dead-vowel")
    for lost, known in _cognates(out.rows):
        read = "".join(out.key[sign] for sign in lost)
        body = re.sub(f"[^{''.join(vowels)}]+$", "", known)  # the word up to its last vowel
        # Each consonant with the vowel after it (po-to-li); finals unwritten or with the dead vowel.
        spelled = re.sub(f"([^{''.join(vowels)}]+)(.)", lambda m: "".join(c + m[2] for c in m[1]), body)
        assert read == spelled + ("".join(c + dead[1] for c in known[len(body) :]) if dead else ""), (lost, known)
    # Real finals occur and, with dead vowels, a final's sign is a syllable's sign too (as Cypriot's se).
    finals = {known[-1] for _, known in _cognates(out.rows)} - vowels
    assert finals
    if dead:
        final_signs = {lost[-1] for lost, known in _cognates(out.rows) if known[-1] in finals}
        inner_signs = {sign for lost, _ in _cognates(out.rows) for sign in lost[:-1]}
        assert final_signs & inner_signs and all(unit[-1] in vowels for unit in out.key.values())


def test_the_same_list_and_seed_give_the_same_bytes_and_another_seed_another_script(greek_words: Path) -> None:
    a, b, c = (generate(GeneratorSpec(kind="dead-vowel", seed=s, lost_words=100, words=greek_words)) for s in (1, 1, 2))
    assert a.cog_text() == b.cog_text() and a.key == b.key
    assert a.key != c.key and a.cog_text() != c.cog_text()
    key = syllabary_key_text(a)
    assert key.startswith("lost\tknown\n") and len(key.splitlines()) > 20


def test_auto_reads_real_greek_in_a_cypriot_like_syllabary(greek_words: Path, tmp_path: Path, single_thread) -> None:
    """The Cypriot-style generator over real Greek words, end to end (the case that crashed at
    484b4f0 on the real Cypriot list): auto searches the signs as syllables and proposes pairs. A
    short schedule: this is the no-crash check; docs/small-lists.md has the full run's figures."""
    path = tmp_path / "greek.dead-vowel.cog"
    path.write_text(generate(GeneratorSpec(kind="dead-vowel", seed=1, lost_words=150, words=greek_words)).cog_text(),
                    encoding="utf-8")  # fmt: skip
    corpus = read_cog(path)
    result = run_decipherment(corpus, DecipherConfig(method="auto", device="cpu", seed=1, auto_steps=60, threads=1))
    assert result.status == "finished" and result.proposals
    assert "syllables" in result.decisions


def test_a_list_too_short_for_the_sizes_names_the_most_it_allows(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("\n".join(["patera", "mater", "frater", "domus", "lupus", "ventus", "nomen", "ignis"]) + "\n",
                     encoding="utf-8")  # fmt: skip
    with pytest.raises(ValueError, match=r"words\.txt: 8 distinct words, fewer than the 22 .* --lost-words 3 or fewer"):
        generate(GeneratorSpec(kind="syllabary", lost_words=10, words=words))
    assert generate(GeneratorSpec(kind="syllabary", lost_words=3, words=words)).n_lost == 3


def test_cli_refuses_real_words_for_a_letter_kind_and_a_bad_file_in_one_line(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("patera\nma\x07ter\n", encoding="utf-8")
    runner = CliRunner()
    bad = runner.invoke(app, ["corpus", "generate", "dead-vowel", "--words", str(words), "--out", str(tmp_path / "a")])
    assert bad.exit_code != 0 and f"{words}:2:" in bad.output and "control character" in bad.output
    assert not (tmp_path / "a").exists()
    words.write_text("patera\nmater\n", encoding="utf-8")
    letters = runner.invoke(app, ["corpus", "generate", "substitution", "--words", str(words)])
    assert letters.exit_code != 0 and "corpus encipher" in letters.output and len(letters.output.splitlines()) == 1


def test_cli_writes_a_real_word_corpus_and_its_key(greek_words: Path, tmp_path: Path) -> None:
    out, key = tmp_path / "gr.cog", tmp_path / "gr.key"
    args = ["corpus", "generate", "dead-vowel", "--words", str(greek_words), "--seed", "4", "--lost-words", "120"]
    result = CliRunner().invoke(app, [*args, "--out", str(out), "--key", str(key)])
    assert result.exit_code == 0, result.output
    assert "120 lost words (72 with a cognate)" in result.output and "dead vowel" in result.output
    corpus = read_cog(out)
    assert len(corpus.lost_words) == 120 and sum(1 for known in corpus.gold.values() if known) == 72
    signs = {line.split("\t")[0] for line in key.read_text(encoding="utf-8").splitlines()[1:]}
    assert {s for w in corpus.lost_words for s in w} <= signs
