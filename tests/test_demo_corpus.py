"""The synthetic demo corpus: deterministic, well-formed, regular, and committed as generated."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tui_decipher.engine.corpora.demo_corpus import (
    KNOWN_CODE,
    LOST_CODE,
    DemoSpec,
    demo_cog_text,
    generate_demo_lines,
    sound_changes,
    write_demo_corpus,
)

COMMITTED = Path(__file__).resolve().parents[1] / "corpora" / "demo.cog"
SMALL = DemoSpec(seed=3, n_cognates=60, n_lost_only=15, n_known_only=30)


def _split(rows: list[tuple[str, str]]):
    cognates = [(lost, known) for lost, known in rows if lost != "_" and known != "_"]
    lost_only = [lost for lost, known in rows if known == "_"]
    known_only = [known for lost, known in rows if lost == "_"]
    return cognates, lost_only, known_only


def test_same_spec_gives_identical_text() -> None:
    assert demo_cog_text(DemoSpec()) == demo_cog_text(DemoSpec())
    assert demo_cog_text(SMALL) == demo_cog_text(SMALL)


def test_different_seed_differs() -> None:
    assert demo_cog_text(DemoSpec(seed=7)) != demo_cog_text(DemoSpec(seed=8))


@pytest.mark.parametrize("spec", [DemoSpec(), SMALL, DemoSpec(seed=11, n_cognates=0, n_lost_only=5)])
def test_counts_match_spec(spec: DemoSpec) -> None:
    rows = generate_demo_lines(spec)
    cognates, lost_only, known_only = _split(rows)
    assert len(rows) == spec.n_cognates + spec.n_lost_only + spec.n_known_only
    assert len(cognates) == spec.n_cognates
    assert len(lost_only) == spec.n_lost_only
    assert len(known_only) == spec.n_known_only
    assert all(not (lost == "_" and known == "_") for lost, known in rows)


def test_text_format() -> None:
    text = demo_cog_text(SMALL)
    assert text.endswith("\n") and not text.endswith("\n\n")
    lines = text.split("\n")[:-1]
    assert lines[0] == f"{LOST_CODE}\t{KNOWN_CODE}" == "ves\tkal"
    assert [tuple(line.split("\t")) for line in lines[1:]] == generate_demo_lines(SMALL)
    for line in lines[1:]:
        cells = line.split("\t")
        assert len(cells) == 2
        assert all(cell and " " not in cell and "|" not in cell for cell in cells)


@pytest.mark.parametrize("spec", [DemoSpec(), SMALL])
def test_words_distinct_per_language(spec: DemoSpec) -> None:
    rows = generate_demo_lines(spec)
    lost = [w for w, _ in rows if w != "_"]
    known = [w for _, w in rows if w != "_"]
    assert len(lost) == len(set(lost)) == spec.n_cognates + spec.n_lost_only
    assert len(known) == len(set(known)) == spec.n_cognates + spec.n_known_only


def test_alphabets_are_disjoint_scripts() -> None:
    rows = generate_demo_lines()
    lost_chars = {c for w, _ in rows if w != "_" for c in w}
    known_chars = {c for _, w in rows if w != "_" for c in w}
    assert not lost_chars & known_chars
    assert all("a" <= c <= "z" for c in known_chars)
    assert all("\u0370" <= c <= "\u03ff" for c in lost_chars)  # Greek block
    assert 18 <= len(known_chars) <= 22
    assert 15 <= len(lost_chars) <= 25


@pytest.mark.parametrize("seed", [7, 1, 2, 3, 42])
def test_sound_changes_are_regular(seed: int) -> None:
    """The first-letter correspondence known -> lost is (almost) a function."""
    cognates, _, _ = _split(generate_demo_lines(DemoSpec(seed=seed)))
    by_first: dict[str, Counter[str]] = defaultdict(Counter)
    for lost, known in cognates:
        by_first[known[0]][lost[0]] += 1
    majority = {k: counter.most_common(1)[0][0] for k, counter in by_first.items()}
    agree = sum(lost[0] == majority[known[0]] for lost, known in cognates)
    assert agree >= 0.85 * len(cognates)
    # Lengths stay close: the laws only delete (h, final vowels) or fuse two letters into one.
    assert all(len(known) - 3 <= len(lost) <= len(known) for lost, known in cognates)


@pytest.mark.parametrize("spec", [DemoSpec(), SMALL, DemoSpec(seed=99)])
def test_lost_only_never_equals_a_cognate(spec: DemoSpec) -> None:
    cognates, lost_only, _ = _split(generate_demo_lines(spec))
    assert not set(lost_only) & {lost for lost, _ in cognates}


def test_sound_changes_description() -> None:
    laws = sound_changes()
    assert 5 <= len(laws) <= 8
    assert all(isinstance(line, str) and line for line in laws)
    assert laws == sound_changes(DemoSpec())


def test_write_demo_corpus(tmp_path: Path) -> None:
    path = write_demo_corpus(tmp_path / "sub" / "demo.cog", SMALL)
    assert path.read_bytes() == demo_cog_text(SMALL).encode("utf-8")


def test_committed_corpus_is_reproducible() -> None:
    assert COMMITTED.is_file(), "regenerate with: python -m tui_decipher.engine.corpora.demo_corpus corpora/demo.cog"
    assert COMMITTED.read_bytes() == demo_cog_text(DemoSpec()).encode("utf-8")
