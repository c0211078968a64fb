"""The synthetic corpus generators: deterministic, the sizes asked for, and each kind's properties."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tui_decipher.cli import app
from tui_decipher.engine.corpora.corpus import read_cog
from tui_decipher.engine.corpora.generators import (
    KIND_DEFAULTS,
    KINDS,
    GeneratorSpec,
    generate,
    syllabary_key,
    write_generated,
)
from tui_decipher.engine.corpora.registry import load_corpus
from tui_decipher.engine.methods import check_demand
from tui_decipher.engine.run.config import DecipherConfig

N = 60  # lost words: small, so the whole file runs in well under a second


def _columns(rows) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    lost = [w for w, _ in rows if w != "_"]
    known = [w for _, w in rows if w != "_"]
    cognates = [(a, b) for a, b in rows if a != "_" and b != "_"]
    return lost, known, cognates


def _letters(words: list[str]) -> set[str]:
    return {c for w in words for c in w}


def _edit_distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


@pytest.mark.parametrize("kind", KINDS)
def test_deterministic_per_seed(kind: str, tmp_path: Path) -> None:
    spec = GeneratorSpec(kind=kind, seed=3, lost_words=N)
    a = write_generated(tmp_path / "a.cog", spec)
    b = write_generated(tmp_path / "b.cog", spec)
    assert (tmp_path / "a.cog").read_bytes() == (tmp_path / "b.cog").read_bytes()
    assert a.rows == b.rows and a.laws == b.laws
    assert generate(GeneratorSpec(kind=kind, seed=4, lost_words=N)).rows != a.rows


@pytest.mark.parametrize("kind", KINDS)
def test_sizes_distinct_words_and_project_reader(kind: str, tmp_path: Path) -> None:
    spec = GeneratorSpec(kind=kind, seed=1, lost_words=N)
    out = write_generated(tmp_path / f"{kind}.cog", spec)
    share, ratio = KIND_DEFAULTS[kind]
    lost, known, cognates = _columns(out.rows)
    assert len(lost) == len(set(lost)) == N == out.n_lost
    assert len(known) == len(set(known)) == round(ratio * N) == out.n_known
    assert len(cognates) == round(share * N) == out.n_cognates
    assert all(not (a == "_" and b == "_") for a, b in out.rows)
    text = (tmp_path / f"{kind}.cog").read_text(encoding="utf-8")
    assert text.startswith("lost\tknown\n") and text.endswith("\n") and not text.endswith("\n\n")

    corpus = read_cog(tmp_path / f"{kind}.cog")
    assert len(corpus.lost_words) == N and len(corpus.known_words) == len(known)
    assert corpus.n_gold_lost == len(cognates)
    gold = corpus.gold.items()
    pairs = {("".join(corpus.lost_words[i]), "".join(corpus.known_words[j])) for i, js in gold for j in js}
    assert pairs == set(cognates)
    cfg = DecipherConfig(corpus=str(tmp_path / f"{kind}.cog"))
    loaded = load_corpus(cfg)
    assert loaded.corpus.stats() == corpus.stats() and check_demand(loaded.corpus, cfg) is None


def test_substitution_scripts_are_disjoint() -> None:
    for seed in range(4):
        out = generate(GeneratorSpec(kind="substitution", seed=seed, lost_words=N))
        lost, known, cognates = _columns(out.rows)
        lost_chars, known_chars = _letters(lost), _letters(known)
        assert not lost_chars & known_chars
        assert all("a" <= c <= "z" for c in known_chars)
        assert all(ord(c) > 0x0400 for c in lost_chars)  # Cyrillic, Armenian or Georgian
        # The laws only merge, delete or fuse sounds, so a cipher word is never longer.
        assert all(len(a) <= len(b) for a, b in cognates)


def test_shared_alphabet_writes_most_letters_as_themselves() -> None:
    for seed in range(4):
        out = generate(GeneratorSpec(kind="shared-alphabet", seed=seed, lost_words=N))
        lost, known, cognates = _columns(out.rows)
        lost_chars, known_chars = _letters(lost), _letters(known)
        assert all("a" <= c <= "z" for c in lost_chars | known_chars)
        assert len(lost_chars & known_chars) >= 0.85 * len(lost_chars)
        tokens = [c for w in lost for c in w]
        assert sum(c in known_chars for c in tokens) >= 0.9 * len(tokens)

        # Cognates are close in plain edit distance; the same words paired at random are not.
        def mean_distance(pairs):
            return sum(_edit_distance(a, b) / max(len(a), len(b)) for a, b in pairs) / len(pairs)

        shifted = [(a, cognates[(i + 1) % len(cognates)][1]) for i, (a, _) in enumerate(cognates)]
        assert mean_distance(cognates) < 0.35 < mean_distance(shifted)
        assert sum(a == b for a, b in cognates) < len(cognates)  # the laws did change words


_SYLLABLE = re.compile(r"(ph|th|kh|[bdgjklmnprstw])?([aeiou])")
_MERGED = {"l": "r", "ph": "p", "th": "t", "kh": "k"}


def _cv_syllables(known: str) -> list[tuple[str, str]]:
    """The (onset, vowel) syllables of a known word, l/r and aspirates merged; codas dropped."""
    return [(_MERGED.get(m[1] or "", m[1] or ""), m[2]) for m in _SYLLABLE.finditer(known)]


def test_syllabary_one_sign_per_cv_with_mergers() -> None:
    out = generate(GeneratorSpec(kind="syllabary", seed=2, lost_words=150, noise=0.0))
    lost, known, cognates = _columns(out.rows)
    assert all(0x10000 <= ord(c) <= 0x1007F for c in _letters(lost))  # the Linear B syllabary block
    assert not _letters(lost) & _letters(known)
    sign_of: dict[tuple[str, str], str] = {}
    for sign_word, known_word in cognates:
        syllables = _cv_syllables(known_word)
        assert len(sign_word) == len(syllables)  # one sign per syllable: codas and final consonants unwritten
        for syllable, sign in zip(syllables, sign_word, strict=True):
            assert sign_of.setdefault(syllable, sign) == sign  # a syllable always gets the same sign
    assert len(set(sign_of.values())) == len(sign_of)  # ... and no two syllables share one
    assert any(on == "r" for on, _ in sign_of) and "l" in "".join(known) and "r" in "".join(known)
    assert any(h in w for w in known for h in ("ph", "th", "kh"))
    # With the default noise, a few signs are wrong but every word still has one sign per syllable.
    noisy = generate(GeneratorSpec(kind="syllabary", seed=2, lost_words=150))
    regular = [len(a) == len(_cv_syllables(b)) for a, b in _columns(noisy.rows)[2]]
    assert all(regular)  # noise substitutes a sign, it never adds or drops one


def test_dead_vowel_syllabary_writes_every_consonant_a_coda_with_a_dead_vowel() -> None:
    # Cypriot-like: one sign per consonant+vowel with every consonant written (a coda with the next
    # syllable's vowel, a final one with the dead vowel the seed drew), aspirates merged; read
    # back through the script's key, a cognate is its known word with those vowels put in.
    out = generate(GeneratorSpec(kind="dead-vowel", seed=2, lost_words=150, noise=0.0))
    lost, known, cognates = _columns(out.rows)
    assert all(0x10000 <= ord(c) <= 0x1007F for c in _letters(lost)) and not _letters(lost) & _letters(known)
    key = syllabary_key(2, "dead-vowel")
    dead = re.search(r"the dead vowel (\w)", " ".join(out.laws)).group(1)
    for sign_word, known_word in cognates:
        plain = re.sub(r"([ptk])h", r"\1", known_word)  # aspirates are written as plain stops
        spelled = re.sub(r"([^aeiou])(?=[^aeiou])", lambda m: m[1] + "_", plain)  # a coda before a consonant
        spelled = re.sub(r"([^aeiou])$", lambda m: m[1] + dead, spelled)
        spelled = re.sub(r"_(?=[^aeiou]*([aeiou]))", lambda m: m[1], spelled)  # ... takes the next vowel
        assert "".join(key[sign] for sign in sign_word) == spelled
    assert any(re.search(r"[^aeiou]$", w) for w in known)  # final consonants occur, and are written
    assert syllabary_key(2, "dead-vowel") != syllabary_key(2)  # a script of its own


def test_syllabary_partial_cognates_and_larger_known() -> None:
    out = generate(GeneratorSpec(kind="syllabary", seed=5, lost_words=200))
    assert out.n_cognates == 120 and out.n_lost == 200 and out.n_known == 350


@pytest.mark.parametrize("base", ["substitution", "shared-alphabet", "syllabary"])
def test_large_known_has_distractors(base: str) -> None:
    out = generate(GeneratorSpec(kind="large-known", seed=1, lost_words=N, base=base))
    assert out.n_known == 5 * N and out.n_lost == N and out.n_cognates == round(0.9 * N)
    lost, known, _ = _columns(out.rows)
    if base == "shared-alphabet":
        assert _letters(lost) <= _letters(known) | {"c", "v"}
    else:
        assert not _letters(lost) & _letters(known)
    if base == "syllabary":
        assert all(0x10000 <= ord(c) <= 0x1007F for c in _letters(lost))


def test_sizes_can_be_overridden() -> None:
    out = generate(GeneratorSpec(kind="substitution", seed=1, lost_words=50, cognate_share=0.5, known_ratio=3.0))
    assert (out.n_lost, out.n_cognates, out.n_known) == (50, 25, 150)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (GeneratorSpec(kind="cuneiform"), "unknown kind"),
        (GeneratorSpec(kind="large-known", base="large-known"), "unknown base kind"),
        (GeneratorSpec(lost_words=0), "at least 1"),
        (GeneratorSpec(cognate_share=1.5), "0..1"),
        (GeneratorSpec(kind="syllabary", known_ratio=0.3), "known ratio"),
        (GeneratorSpec(variants=-0.1), "variants must be in 0..1"),
        (GeneratorSpec(kind="shared-alphabet", false_friends=2.0), "false friends must be in 0..1"),
        (GeneratorSpec(kind="syllabary", false_friends=0.5), "one alphabet on both sides"),
    ],
)
def test_bad_specs_are_refused(spec: GeneratorSpec, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        generate(spec)


def test_cli_generate_writes_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "syl.cog"
    args = ["corpus", "generate", "syllabary", "--seed", "3", "--lost-words", "40", "--out", str(path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"wrote {path}" in result.output and "40 lost words (24 with a cognate), 70 known words" in result.output
    expected = write_generated(tmp_path / "api.cog", GeneratorSpec(kind="syllabary", seed=3, lost_words=40))
    assert path.read_bytes() == (tmp_path / "api.cog").read_bytes()
    assert all(law in result.output for law in expected.laws)

    helped = CliRunner().invoke(app, ["corpus", "generate", "--help"])
    assert helped.exit_code == 0 and all(kind in helped.output for kind in KINDS)


def test_cli_bad_kind_is_a_one_line_error(tmp_path: Path) -> None:
    out = tmp_path / "x.cog"
    result = CliRunner().invoke(app, ["corpus", "generate", "hieroglyphs", "--out", str(out)])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "hieroglyphs" in lines[0] and "syllabary" in lines[0]
    assert "Traceback" not in result.output and not out.exists()


def test_variants_give_known_words_two_lost_cognates(tmp_path: Path) -> None:
    plain = generate(GeneratorSpec("shared-alphabet", seed=3, lost_words=N))
    varied = write_generated(tmp_path / "v.cog", GeneratorSpec("shared-alphabet", seed=3, lost_words=N, variants=0.5))
    # The rows are those of the plain corpus; some cognate cells gain a second lost form, the
    # first form plus one ending, so one known word has two lost cognates.
    doubled = [(a, b) for a, b in varied.rows if "|" in a]
    assert len(plain.rows) == len(varied.rows) and 0.3 * N * 0.9 < len(doubled) < 0.7 * N * 0.9
    for cell, known in doubled:
        first, second = cell.split("|")
        assert known != "_" and second[:-1] == first and len(second) == len(first) + 1
    assert varied.n_lost == N + len(doubled) and varied.n_cognates == plain.n_cognates + len(doubled)
    corpus = read_cog(tmp_path / "v.cog", "lost", "known")
    assert len(corpus.lost_words) == varied.n_lost
    claims = [sum(1 for g in corpus.gold.values() if j in g) for j in range(len(corpus.known_words))]
    assert claims.count(2) == len(doubled)
    # Without variants the bytes are those of a spec that never heard of them.
    assert generate(GeneratorSpec("shared-alphabet", seed=3, lost_words=N, variants=0.0)).rows == plain.rows


def test_false_friends_are_known_words_spelled_as_a_cognates_lost_form(tmp_path: Path) -> None:
    plain = generate(GeneratorSpec("shared-alphabet", seed=3, lost_words=N))
    spec = GeneratorSpec("shared-alphabet", seed=3, lost_words=N, false_friends=1.0)
    friendly = write_generated(tmp_path / "f.cog", spec)
    _, plain_known, plain_cognates = _columns(plain.rows)
    _, known, cognates = _columns(friendly.rows)
    assert sorted(cognates) == sorted(plain_cognates)  # the same cognate rows, shuffled otherwise
    friends = sorted(set(known) - set(plain_known))
    # Every cognate whose lost form is not already a known word's spelling gets its false friend.
    changed = sorted({lost for lost, k in cognates if lost not in plain_known})
    assert friends == changed and len(friends) > N // 10
    corpus = read_cog(tmp_path / "f.cog", "lost", "known")
    known_text = ["".join(w) for w in corpus.known_words]
    for i, gold in corpus.gold.items():
        spelled = "".join(corpus.lost_words[i])
        if spelled in friends:  # the identically spelled known word is never the cognate
            assert known_text.index(spelled) not in gold
    # A spec without them gives the bytes it gave before they existed.
    assert generate(GeneratorSpec("shared-alphabet", seed=3, lost_words=N, false_friends=0.0)).rows == plain.rows
