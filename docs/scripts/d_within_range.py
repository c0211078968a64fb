"""What other D within the evidence's range would have given (a diagnosis; docs/dev-pairs.md, "D
within the range, measured offline, not kept").

Reads finished run folders (`decipher run --out DIR`): the proposals at auto's D and the pairs past
D (beyond_d.tsv, best first, up to the evidence's high end), and scores, with the gold column the
files carry, the first k of that ranking for the D each rule picks: auto's own; the D maximising
expected F1 when the true count is uniform over [D, high] or over [low, high], under a perfect
ranking (F1 = 2 min(k, G) / (k + G)); and the high end. The first k pairs of the ranking stand for
the flow at D = k (the flow at high, which wrote beyond_d.tsv, proposes them); the channel stays
the one trained at auto's D. Gold is read only to score. Run from the repository root:

    python docs/scripts/d_within_range.py RUN_DIR [RUN_DIR ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def _gold(path: Path) -> list[bool]:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    rows = [line.split("\t") for line in text.splitlines()]
    if not rows or "gold" not in rows[0]:
        return []
    column = rows[0].index("gold")
    return [r[column] == "1" for r in rows[1:]]


def expected_f1_demand(low: int, high: int) -> int:
    """The k maximising the mean over G in [low, high] of 2 min(k, G) / (k + G)."""
    counts = np.arange(low, high + 1)
    scores = [np.mean(2 * np.minimum(k, counts) / (k + counts)) for k in range(low, high + 1)]
    return low + int(np.argmax(scores))


def main(folders: list[str]) -> None:
    table: list[tuple[str, int, dict[str, tuple[int, float]]]] = []
    for folder in map(Path, folders):
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
        demand = summary["decisions"].get("demand", {})
        ranked = _gold(folder / "proposals.tsv") + _gold(folder / "beyond_d.tsv")
        d, n_gold = summary["n_proposals"], summary["n_evaluated"]
        high = max(d, min(demand.get("demand_high") or d, len(ranked)))
        low = min(d, demand.get("demand_low") or d)
        picks = {"auto's D": d, "E[F1], [D, high]": expected_f1_demand(d, high),
                 "E[F1], [low, high]": expected_f1_demand(low, high), "high": high}  # fmt: skip
        row = {rule: (k, 100 * 2 * sum(ranked[:k]) / (k + n_gold)) for rule, k in picks.items()}
        table.append((folder.name, n_gold, row))
        print(f"{folder.name:28s} gold {n_gold:4d}  " + "  ".join(f"{r}: {k} F1 {f:.1f}" for r, (k, f) in row.items()))
    for rule in table[0][2]:
        f1 = np.mean([row[rule][1] for _, _, row in table])
        error = 100 * np.mean([abs(row[rule][0] / n - 1) for _, n, row in table])
        print(f"{rule}: mean F1 {f1:.1f}, mean |D / gold - 1| {error:.1f}%")


if __name__ == "__main__":
    main(sys.argv[1:])
