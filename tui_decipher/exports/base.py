"""What an export format is, and the reviewed run every format reads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.constraints.judgments import ACCEPTED
from ..engine.corpora.corpus import Language
from ..session.results import write_atomic
from ..store import OPEN, ProposalRow, RunRow, Store


class ExportError(ValueError):
    """An export that cannot be written as asked (the message is one line)."""


def carried(rows: list[ProposalRow]) -> list[ProposalRow]:
    """Of a run's pairs (its proposals, then its pairs past D), those its exports carry: every
    proposal, and the pairs past D the decipherer judged."""
    return [r for r in rows if not r.beyond or r.status != OPEN]


@dataclass
class ReviewedRun:
    """A stored run as its exports see it: the run, its proposals with their review decisions, its key, its pins."""

    run: RunRow
    rows: list[ProposalRow]
    char_map: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    pins: list[tuple[str, str]] = field(default_factory=list)  # the sign values pinned on it (store.pins)

    @classmethod
    def load(cls, store: Store, run: RunRow) -> ReviewedRun:
        """The run's proposals and, after them, the pairs beyond its D that the decipherer judged."""
        rows = carried(store.proposals(run.id) + store.beyond_pairs(run.id))
        return cls(run, rows, store.char_map(run.id), store.pins(run.id))

    def chosen(self, include_all: bool) -> list[ProposalRow]:
        """The accepted pairs, or (include_all) every proposal, by rank."""
        return [r for r in self.rows if include_all or r.status == ACCEPTED]

    def language(self, code: str) -> Language:
        """The run's record of a language code (its name and Glottocode when the source gave them)."""
        info = self.run.languages.get(code, {})
        return Language(code, info.get("name", ""), info.get("glottocode", ""))


@dataclass(frozen=True)
class Written:
    """What an export wrote: its paths and a one-line account (pairs, cognate sets, alignments)."""

    paths: list[Path]
    summary: str


@dataclass(frozen=True)
class ExportFormat:
    """An export format. A text format has `render` (so it can go to stdout); a folder format
    (CLDF) has `write` alone. `takes_all`: whether it can hold every proposal with its decision."""

    name: str
    suffix: str  # of the file written; "" for a folder
    help: str
    write: Callable[[ReviewedRun, bool, Path], Written]
    render: Callable[[ReviewedRun, bool], tuple[str, str]] | None = None  # (text, summary)
    takes_all: bool = True


def text_format(
    name: str, suffix: str, help: str, render: Callable[[ReviewedRun, bool], tuple[str, str]], takes_all: bool = True
) -> ExportFormat:
    """A format whose export is one text file, written atomically."""

    def write(reviewed: ReviewedRun, include_all: bool, path: Path) -> Written:
        text, summary = render(reviewed, include_all)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
        return Written([path], summary)

    return ExportFormat(name, suffix, help, write, render, takes_all)


def pairs_summary(rows: list[ProposalRow], include_all: bool) -> str:
    what = "proposal(s), each with its decision" if include_all else "accepted pair(s)"
    return f"{len(rows)} {what}"
