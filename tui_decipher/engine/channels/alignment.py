"""How a proposal reads: the best alignment of its pair under the run's own model, segment by segment.

A `Segment` is one step of the model's reading: some lost symbols written from some known letters,
with the step's probability. For the pieces channel a segment is a lost sign over the one or two
letters it writes (`𐠕 𐠮 / μη τε`), or a known letter left unwritten; for the edit channel a letter
written as a symbol, dropped, or a symbol inserted; for the neural EM a lost symbol over the known
symbols whose attention falls on it. A path's segments concatenate to the pair's two words.

The channels' paths are Viterbi paths through the same lattice that scores the pair
(`best_path`); a segment's probability is its step's (operation and symbol) in that lattice, so
the product of a channel path's segments is the path's probability. The neural EM's path is the
monotone path through its attention with the most attention (`attention_path`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

GAP = "-"  # shows the empty side of a segment (a letter unwritten, a symbol written from none)

# One step of a lattice path: (known letters it reads, lost symbols it writes, log-probability).
Step = tuple[int, int, float]


@dataclass(frozen=True)
class Segment:
    """Lost symbols written from known letters (either side may be empty) with the step's probability."""

    lost: tuple[str, ...]
    known: tuple[str, ...]
    p: float

    def cells(self, digits: int = 2) -> tuple[str, str, str]:
        """The segment as it is shown: its lost symbols, its known letters (GAP for an empty side),
        its probability with `digits` decimals."""
        return "".join(self.lost) or GAP, "".join(self.known) or GAP, f"{self.p:.{digits}f}"

    def as_json(self) -> list[Any]:
        return [list(self.lost), list(self.known), round(self.p, 6)]

    @classmethod
    def from_json(cls, row: Sequence[Any]) -> Segment:
        lost, known, p = row
        return cls(tuple(lost), tuple(known), float(p))


Alignment = list[Segment]


def best_path(n_known: int, n_lost: int, into: Callable[[int, int], Iterable[Step]]) -> list[Step]:
    """The most probable path from (0, 0) to (n_known, n_lost) through a lattice whose cell (m, k)
    means "the first m known letters wrote the first k lost symbols". `into(m, k)` lists the steps
    that arrive at (m, k): (letters read, symbols written, log P), each reading or writing one or
    more, or inserting (0 letters) along k. Cells are visited in order of m, then k, so an insertion
    at (m, k) leaves from (m, k - 1), which is done. [] where (n_known, n_lost) cannot be reached."""
    best: dict[tuple[int, int], tuple[float, Step | None]] = {(0, 0): (0.0, None)}
    for m in range(n_known + 1):
        for k in range(n_lost + 1):
            if m == 0 and k == 0:
                continue
            top: tuple[float, Step | None] | None = None
            for step in into(m, k):
                dm, dk, log_p = step
                prev = best.get((m - dm, k - dk))
                if prev is not None and (top is None or prev[0] + log_p > top[0]):
                    top = (prev[0] + log_p, step)
            if top is not None:
                best[m, k] = top
    if (n_known, n_lost) not in best:
        return []
    path: list[Step] = []
    m, k = n_known, n_lost
    while (m, k) != (0, 0):
        back = best[m, k][1]
        assert back is not None
        path.append(back)
        m, k = m - back[0], k - back[1]
    return path[::-1]


def segments(path: Sequence[Step], lost: Sequence[str], known: Sequence[str]) -> Alignment:
    """A lattice path's steps as segments of the two words."""
    out, m, k = [], 0, 0
    for dm, dk, log_p in path:
        out.append(Segment(tuple(lost[k : k + dk]), tuple(known[m : m + dm]), math.exp(log_p)))
        m, k = m + dm, k + dk
    return out


def attention_path(lost: Sequence[str], known: Sequence[str], attention: Sequence[Sequence[float]]) -> Alignment:
    """The neural EM's reading of a pair: each known symbol t attends to one lost position i_t, never
    before its predecessor's (a monotone path), chosen to maximise the product of the attention
    weights alpha[t][i_t]; `attention` is (|known| + 1, |lost| + 1), rows known symbols and end of
    word, columns lost symbols and end of word. Known symbols on one lost symbol form its segment
    (probability: the product of their weights); one on the end-of-word column was written from no
    lost symbol; a lost symbol no known symbol attends to stands alone. [] where the grid does not fit."""
    n_known, n_lost = len(known), len(lost)
    if n_known == 0 or len(attention) < n_known or any(len(row) < n_lost + 1 for row in attention[:n_known]):
        return []
    logs = [[math.log(max(float(w), 1e-12)) for w in row[: n_lost + 1]] for row in attention[:n_known]]
    # score[t][i]: the best path of known symbols 0..t with symbol t on lost position i.
    score, back = [logs[0][:]], [[0] * (n_lost + 1)]
    for t in range(1, n_known):
        row, arg, best_i = [], [], 0
        for i in range(n_lost + 1):
            if score[t - 1][i] > score[t - 1][best_i]:
                best_i = i
            row.append(score[t - 1][best_i] + logs[t][i])
            arg.append(best_i)
        score.append(row)
        back.append(arg)
    positions = [max(range(n_lost + 1), key=lambda i: score[-1][i])]
    for t in range(n_known - 1, 0, -1):
        positions.append(back[t][positions[-1]])
    positions.reverse()
    out: Alignment = []
    done = 0  # lost symbols placed so far
    t = 0
    while t < n_known:
        i = positions[t]
        group = [t]
        while t + len(group) < n_known and positions[t + len(group)] == i:
            group.append(t + len(group))
        p = math.prod(math.exp(logs[u][i]) for u in group)
        letters = tuple(known[u] for u in group)
        out.extend(Segment((lost[j],), (), 1.0) for j in range(done, min(i, n_lost)))  # lost symbols skipped
        if i >= n_lost:  # attends to the end of the lost word: written from none of its symbols
            out.append(Segment((), letters, p))
            done = n_lost
        else:
            out.append(Segment((lost[i],), letters, p))
            done = i + 1
        t += len(group)
    out.extend(Segment((lost[j],), (), 1.0) for j in range(done, n_lost))
    return out


def reads_as(alignment: Alignment, lost: Sequence[str], known: Sequence[str]) -> bool:
    """Whether an alignment's lost segments concatenate to `lost` and its known ones to `known`."""
    return [s for seg in alignment for s in seg.lost] == list(lost) and [
        s for seg in alignment for s in seg.known
    ] == list(known)


def alignment_lines(alignment: Alignment, digits: int = 2) -> tuple[str, str, str]:
    """The alignment as three lines of columns: lost segments, known segments, probabilities
    (`𐠕 𐠮` / `μη τε` / `0.91 0.62`); an empty side shows GAP."""
    cells = [s.cells(digits) for s in alignment]
    widths = [max(len(c) for c in cell) for cell in cells]
    lines = (" ".join(cell[row].ljust(w) for cell, w in zip(cells, widths, strict=True)).rstrip() for row in range(3))
    return tuple(lines)  # type: ignore[return-value]


def alignment_text(alignment: Alignment) -> str:
    """One line for a table cell: lost segments / known segments (`𐠕 𐠮 / μη τε`)."""
    lost = " ".join(s.cells()[0] for s in alignment)
    known = " ".join(s.cells()[1] for s in alignment)
    return f"{lost} / {known}" if alignment else ""
