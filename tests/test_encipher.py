"""`decipher corpus encipher`: a corpus's lost side in an unrelated script, the rows, the known
side and the gold as they were; one-to-one (the key reads it back) or few-to-one."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tui_decipher.cli import app
from tui_decipher.engine.corpora.corpus import CorpusError, read_cog, read_cog_table
from tui_decipher.engine.corpora.encipher import SCRIPTS, encipher

runner = CliRunner()
TINY = Path(__file__).parent / "data" / "v1_run.cog"


def _written(tmp_path: Path, text: str, name: str = "e.cog") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_lost_side_is_rewritten_and_reads_back_through_its_key(tmp_path) -> None:
    result = encipher(TINY, seed=3)
    plain, secret = read_cog(TINY), read_cog(_written(tmp_path, result.text))
    first, last = SCRIPTS["cherokee"]
    assert all(first <= ord(s) <= last for w in secret.lost_words for s in w)
    assert secret.known_words == plain.known_words and secret.gold == plain.gold
    symbol = {sign: symbols[0] for sign, symbols in result.key.items()}
    assert [tuple(symbol[s] for s in w) for w in secret.lost_words] == list(plain.lost_words)
    assert len(result.key) == len({s for w in plain.lost_words for s in w})  # one-to-one


def test_a_seed_is_a_map(tmp_path) -> None:
    assert encipher(TINY, seed=3).text == encipher(TINY, seed=3).text
    assert encipher(TINY, seed=3).key != encipher(TINY, seed=4).key


def test_merge_writes_the_rarest_symbols_with_others_signs(tmp_path) -> None:
    plain = read_cog(TINY)
    n = len({s for w in plain.lost_words for s in w})
    merged = encipher(TINY, seed=3, merge=4)
    assert len(merged.key) == n - 4 and sum(len(v) for v in merged.key.values()) == n
    secret = read_cog(_written(tmp_path, merged.text))
    assert secret.gold == plain.gold and len({s for w in secret.lost_words for s in w}) == n - 4


def test_another_column_multi_word_cells_and_gaps_keep_their_places(tmp_path) -> None:
    path = _written(tmp_path, "aa\tbb\tcc\nab|ba\tx\t_\n_\ty\tabc\nc\t_\tz\n", "three.cog")
    result = encipher(path, seed=1, lost="cc")
    table = read_cog_table(_written(tmp_path, result.text))
    assert table.codes == ("aa", "bb", "cc")
    original = read_cog_table(path)
    for before, after in zip(original.rows, table.rows, strict=True):
        assert before[:2] == after[:2] and [len(w) for w in before[2]] == [len(w) for w in after[2]]


def test_bad_settings_and_files_are_one_line(tmp_path) -> None:
    with pytest.raises(ValueError, match="not one of"):
        encipher(TINY, seed=1, script="klingon")
    with pytest.raises(ValueError, match="only"):
        encipher(TINY, seed=1, merge=500)
    clash = _written(tmp_path, "aa\tbb\nab\tᎠb\n")
    with pytest.raises(CorpusError, match="already write cherokee"):
        encipher(clash, seed=1)
    many = _written(tmp_path, "aa\tbb\n" + "".join(f"{chr(0x4E00 + k)}\tb\n" for k in range(90)), "many.cog")
    with pytest.raises(CorpusError, match="more than cherokee's 86 letters"):
        encipher(many, seed=1)
    assert len(encipher(many, seed=1, script="yi").key) == 90


def test_the_command_writes_the_corpus_and_its_key(tmp_path) -> None:
    out, key = tmp_path / "secret.cog", tmp_path / "key.tsv"
    result = runner.invoke(app, ["corpus", "encipher", str(TINY), "--seed", "5", "--out", str(out), "--key", str(key)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output and read_cog(out).gold == read_cog(TINY).gold
    assert key.read_text(encoding="utf-8").startswith("lost\tknown\n")
    bad = runner.invoke(app, ["corpus", "encipher", str(tmp_path / "none.cog")])
    assert bad.exit_code == 2 and "none.cog" in bad.output and "Traceback" not in bad.output


def test_a_syllabic_encipherment_writes_a_sign_a_syllable_by_the_words_own_vowels(tmp_path) -> None:
    from tui_decipher.engine.corpora.encipher import syllables

    vowels = frozenset("aeiou")
    assert syllables(tuple("ptolis"), vowels, finals=False) == ("po", "to", "li")  # a cluster in full, the s unwritten
    assert syllables(tuple("ptolis"), vowels, finals=True) == ("po", "to", "li", "s")  # the s with a sign of its own
    assert syllables(tuple("kast"), vowels, finals=True) == ("ka", "s", "t")
    assert syllables(tuple("str"), vowels, finals=False) == ("s", "t", "r")  # no vowel: consonant by consonant
    path = _written(tmp_path, "ll\tkk\n" + "".join(f"{w}\t{w}\n" for w in ("pata", "tapo", "kolis", "sino", "mukas",
                                                                         "ponte", "lamir", "tekul")))  # fmt: skip
    result = encipher(path, seed=2, syllabic="dead-vowel")
    first, last = SCRIPTS["yi"]
    secret = read_cog(_written(tmp_path, result.text, "s.cog"))
    assert result.script == "yi" and all(first <= ord(s) <= last for w in secret.lost_words for s in w)
    assert secret.gold == read_cog(path).gold
    unit = {sign: units[0] for sign, units in result.key.items()}
    assert "".join(unit[s] for s in secret.lost_words[2]) == "kolis"  # ko-li-s
    assert (
        len(read_cog(_written(tmp_path, encipher(path, seed=2, syllabic="syllabary").text, "u.cog")).lost_words[2]) == 2
    )
    with pytest.raises(ValueError, match="not one of"):
        encipher(path, seed=2, syllabic="abugida")
