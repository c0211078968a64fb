"""Reviewed pairs as cognate sets, for the formats that hold sets (EDICTOR, CLDF).

Cognacy is an equivalence: accepted pairs that share a word are one set (accepting a ~ b and
c ~ b says a ~ c). Every other exported pair (open or rejected, with --all) is a set of its own
two words, so a rejected pair never joins an accepted set; a word in two sets is in both.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..store import ACCEPTED, ProposalRow
from .alignment import Key, align_set
from .base import ReviewedRun


@dataclass(frozen=True)
class Member:
    """A word of a cognate set."""

    lost: bool  # a word of the lost language (else of the known one)
    index: int  # its index in its vocabulary (the store's lost_index / known_index)
    text: str
    tokens: list[str]
    gloss: str  # its concept in the source, "" when it has none


@dataclass
class CognateSet:
    """One set: its words (lost first), their alignment, which source aligned them, its pairs."""

    id: int
    pairs: list[ProposalRow]
    members: list[Member] = field(default_factory=list)
    alignment: list[list[str]] = field(default_factory=list)  # one row per member
    source: str = ""  # exports/alignment.py: model, key, sca, msa or none

    @property
    def status(self) -> str:
        return self.pairs[0].status  # a set's pairs share their status (accepted sets merge only accepted)

    def score(self, member: Member) -> float:
        """The best score of the set's pairs this word is in."""
        index = "lost_index" if member.lost else "known_index"
        return max(p.score for p in self.pairs if getattr(p, index) == member.index)

    def concept(self, member: Member) -> str:
        """The word's concept in the source; else its known cognates'; else the first known word itself.
        On one line: a tab or a newline in a source's concept would break a TSV row."""
        known = [m for m in self.members if not m.lost]
        text = member.gloss or next((m.gloss for m in known if m.gloss), known[0].text if known else member.text)
        return " ".join(text.split())


def _accepted_components(rows: list[ProposalRow]) -> list[list[ProposalRow]]:
    """Accepted pairs grouped by shared words (union-find over lost and known words), by best rank."""
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(node: tuple[str, int]) -> tuple[str, int]:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for r in rows:
        parent[find(("lost", r.lost_index))] = find(("known", r.known_index))
    groups: dict[tuple[str, int], list[ProposalRow]] = {}
    for r in rows:
        groups.setdefault(find(("lost", r.lost_index)), []).append(r)
    return list(groups.values())


def cognate_sets(reviewed: ReviewedRun, include_all: bool) -> list[CognateSet]:
    """The exported pairs as cognate sets, numbered from 1 by their best pair's rank, each aligned."""
    rows = reviewed.chosen(include_all)
    groups = _accepted_components([r for r in rows if r.status == ACCEPTED])
    groups += [[r] for r in rows if r.status != ACCEPTED]
    groups.sort(key=lambda g: min(r.rank for r in g))
    return [_filled(CognateSet(n, sorted(g, key=lambda r: r.rank)), reviewed.char_map) for n, g in enumerate(groups, 1)]


def _filled(cset: CognateSet, key: Key) -> CognateSet:
    lost: dict[int, Member] = {}
    known: dict[int, Member] = {}
    for r in cset.pairs:
        lost.setdefault(r.lost_index, Member(True, r.lost_index, r.lost, r.lost_tokens, r.lost_gloss))
        known.setdefault(r.known_index, Member(False, r.known_index, r.known, r.known_tokens, r.known_gloss))
    cset.members = [*lost.values(), *known.values()]
    reading = cset.pairs[0].alignment if len(cset.pairs) == 1 else None
    cset.alignment, cset.source = align_set([m.tokens for m in cset.members], len(lost), reading, key)
    return cset


def sources_summary(sets: list[CognateSet]) -> str:
    """How the sets were aligned, e.g. "aligned by: key 12, msa 1"."""
    counts: dict[str, int] = {}
    for s in sets:
        counts[s.source] = counts.get(s.source, 0) + 1
    return "aligned by: " + (", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "-")
