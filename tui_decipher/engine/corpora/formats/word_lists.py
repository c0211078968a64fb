"""Plain word lists, one word per line: the real decipherment case, two unpaired lists and no
gold (`decipher run --lost-words FILE --known-words FILE`)."""

from __future__ import annotations

from pathlib import Path

from ..corpus import Corpus, CorpusError, Language, Word, check_usable, parse_word, read_lines, vocabulary


def read_word_list(path: str | Path) -> tuple[Word, ...]:
    """One word per line (blank lines skipped); duplicates are kept once."""
    path = Path(path)
    words = []
    for n, line in enumerate(read_lines(path), start=1):
        token = line.strip()
        if token:
            words.append(parse_word(path, n, token))
    vocab, _ = vocabulary(words)
    if not vocab:
        raise CorpusError(path, None, "empty word list")
    return vocab


def read_word_lists(
    lost_path: str | Path,
    known_path: str | Path,
    lost_code: str = "lost",
    known_code: str = "known",
    name: str | None = None,
) -> Corpus:
    """The real decipherment case: two unpaired word lists and no gold."""
    lost_path, known_path = Path(lost_path), Path(known_path)
    lost_vocab = read_word_list(lost_path)
    known_vocab = read_word_list(known_path)
    check_usable(lost_path, lost_code, lost_vocab)
    check_usable(known_path, known_code, known_vocab)
    return Corpus(
        name=name or f"{lost_path.stem}-{known_path.stem}",
        lost_code=lost_code,
        known_code=known_code,
        lost_words=lost_vocab,
        known_words=known_vocab,
        gold={},
        source=f"{lost_path} + {known_path}",
        format="word lists",
        languages=(Language(lost_code), Language(known_code)),
    )
