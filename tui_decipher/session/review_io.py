"""A run's judgments as a TSV file, read and written without the TUI (`decipher review`).

The file has the header `lost<TAB>known<TAB>decision`, then one judged pair a line: the lost word,
the known word, and `accepted`, `rejected` or `unsure`; on import, `open` clears a pair's decision.
The words are matched to the run's vocabularies, so any pair of them can be judged, proposed or not.

A file is checked whole before anything is stored: the first bad line is reported as one
`FILE:LINE: problem` (CorpusError) and nothing of the file is written. Imports no UI library.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ..engine.constraints.sign_values import HEADER as SIGN_HEADER
from ..engine.constraints.sign_values import SignValues, read_sign_values
from ..engine.corpora.corpus import Corpus, CorpusError, read_lines, word_text
from ..engine.corpora.registry import CorpusSpec, load_corpus
from ..store import DECIDED, OPEN, ProposalRow, RunRow, StoreError

HEADER = ("lost", "known", "decision")
IMPORTED = (*DECIDED, OPEN)  # what an imported line may say; `open` clears the pair's decision


@dataclass(frozen=True)
class RunVocabulary:
    """A run's lost and known words as the store writes them (`word_text`), by corpus index."""

    lost: tuple[str, ...]
    known: tuple[str, ...]
    corpus: Corpus | None = field(default=None, compare=False, repr=False)  # what sign values are checked against

    @classmethod
    def of(cls, corpus: Corpus) -> RunVocabulary:
        return cls(tuple(map(word_text, corpus.lost_words)), tuple(map(word_text, corpus.known_words)), corpus)

    def lost_index(self, text: str) -> int | None:
        """The lost word's corpus index (None if it is not one). Two words of a segmented source
        can read the same once their symbols are run together ("k ʷ" and "kʷ"): the first wins."""
        return _first_index(self.lost).get(text)

    def known_index(self, text: str) -> int | None:
        """The known word's corpus index (None if it is not one); the first of equal spellings."""
        return _first_index(self.known).get(text)


@cache
def _first_index(words: tuple[str, ...]) -> dict[str, int]:
    """Each spelling's first index (cached: a file of n lines looks up 2n words in the same lists)."""
    index: dict[str, int] = {}
    for n, text in enumerate(words):
        index.setdefault(text, n)
    return index


def run_vocabulary(run: RunRow, proposals: Sequence[ProposalRow] = ()) -> RunVocabulary:
    """The vocabularies of the corpus `run` was made on, loaded as a refinement loads them (the
    corpus its settings name). StoreError when that corpus cannot be read now, or no longer has the
    run's words (it changed since the run: a decision's indices would judge other words)."""
    try:
        corpus = load_corpus(CorpusSpec.of(run.config)).corpus
    except (CorpusError, ValueError) as exc:
        raise StoreError(f"run #{run.id}: cannot read its corpus {run.corpus_path!r}: {exc}") from None
    vocab = RunVocabulary.of(corpus)
    stored = (run.stats.get("lost_words"), run.stats.get("known_words"))
    changed = stored != (len(vocab.lost), len(vocab.known)) or any(
        p.lost_index >= len(vocab.lost) or p.known_index >= len(vocab.known)
        or (vocab.lost[p.lost_index], vocab.known[p.known_index]) != (p.lost, p.known)
        for p in proposals
    )  # fmt: skip
    if changed:
        raise StoreError(
            f"run #{run.id}: its corpus {run.corpus_path!r} has changed since the run ({stored[0]} x {stored[1]} "
            f"words then, {len(vocab.lost)} x {len(vocab.known)} now, or other words); its judgments cannot be matched"
        )
    return vocab


def is_sign_values_file(path: Path) -> bool:
    """Whether a review file is sign values (the `--known-signs` format: the header `lost<TAB>known`,
    no decision column) rather than judged pairs. CorpusError where it cannot be read."""
    for text in read_lines(path):
        if text.strip() and not text.lstrip().startswith("#"):
            return tuple(c.strip().lower() for c in text.split("\t")) == SIGN_HEADER
    return False


def read_pins(path: Path, vocab: RunVocabulary) -> SignValues:
    """A sign values file (`is_sign_values_file`) read against the run's corpus, as pins for it
    (engine/constraints/sign_values.py); CorpusError naming the file and line of a bad one."""
    assert vocab.corpus is not None  # a run's vocabulary is read from its corpus
    return read_sign_values(path, vocab.corpus)


def read_judgments(path: Path, vocab: RunVocabulary) -> list[tuple[int, int, str]]:
    """The (lost index, known index, decision) items of a review file, in file order, each pair once.

    Every line is checked before any is returned; the first problem raises CorpusError naming the
    file and line: a header other than `lost<TAB>known<TAB>decision`, a line without exactly three
    cells, a word not in the run's vocabulary, an unknown decision, or a pair given twice with
    different decisions (the same decision twice is kept once). Empty lines, and lines whose
    decision is empty (a pair asked for and not judged yet), are skipped.
    """
    lines = read_lines(path)
    if not lines:
        raise CorpusError(path, 1, f"empty file: expected the header {_header()}")
    if tuple(cell.strip() for cell in lines[0].split("\t")) != HEADER:
        raise CorpusError(path, 1, f"bad header {lines[0]!r}: expected {_header()}")
    items: dict[tuple[int, int], tuple[str, int]] = {}  # pair -> (decision, line it was given on)
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = [cell.strip() for cell in line.split("\t")]
        if len(cells) != len(HEADER):
            raise CorpusError(path, n, f"{len(cells)} column(s), expected 3 separated by tabs: lost, known, decision")
        lost, known, decision = cells
        i, j = vocab.lost_index(lost), vocab.known_index(known)
        if i is None:
            hint = " (it is a known word: are the columns swapped?)" if vocab.known_index(lost) is not None else ""
            raise CorpusError(path, n, f"unknown lost word {lost!r}: not in the run's lost vocabulary{hint}")
        if j is None:
            hint = " (it is a lost word: are the columns swapped?)" if vocab.lost_index(known) is not None else ""
            raise CorpusError(path, n, f"unknown known word {known!r}: not in the run's known vocabulary{hint}")
        if not decision:  # asked, not judged yet (a boundary review's file, `decipher review boundary`)
            continue
        if decision not in IMPORTED:
            raise CorpusError(path, n, f"unknown decision {decision!r}: expected one of {', '.join(IMPORTED)}")
        earlier = items.get((i, j))
        if earlier is not None and earlier[0] != decision:
            raise CorpusError(path, n, f"{lost} -> {known} is {decision} here but {earlier[0]} on line {earlier[1]}")
        items.setdefault((i, j), (decision, n))
    return [(i, j, decision) for (i, j), (decision, _) in items.items()]


def write_judgments(judgments: Mapping[tuple[int, int], str], vocab: RunVocabulary) -> str:
    """Every judgment as a review file, sorted by lost word, then known word (what import reads back)."""
    outside = [pair for pair in judgments if not (0 <= pair[0] < len(vocab.lost) and 0 <= pair[1] < len(vocab.known))]
    if outside:  # recorded on another corpus: refuse rather than write other words
        raise StoreError(f"judgment on pair {min(outside)} is outside the corpus "
                         f"({len(vocab.lost)} lost x {len(vocab.known)} known words)")  # fmt: skip
    return review_text(sorted((vocab.lost[i], vocab.known[j], status) for (i, j), status in judgments.items()))


def review_text(rows: Iterable[tuple[str, str, str]]) -> str:
    """A review file of (lost word, known word, decision) rows under its header; a decision left
    empty is a pair asked for and not judged yet (`decipher review boundary`)."""
    return "".join("\t".join(cells) + "\n" for cells in [HEADER, *rows])


def judgments_summary(items: Iterable[tuple[int, int, str]]) -> str:
    """`8 accepted, 3 rejected, 1 unsure` (and `2 cleared` for `open` lines), each judgment counted."""
    counts = Counter(status for _, _, status in items)
    parts = [f"{counts[status]} {status}" for status in DECIDED]
    if counts[OPEN]:
        parts.append(f"{counts[OPEN]} cleared")
    return ", ".join(parts)


def _header() -> str:
    return "lost<TAB>known<TAB>decision"
