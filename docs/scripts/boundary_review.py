"""The boundary review answered from gold, on finished run folders (docs/settled-demand.md): the
pairs `decipher review boundary` asks for (10, then 20), judged from the gold column the files
carry, D settled from them (session/settled_demand.py) and F1 scored at each D: the bench's
`answer_boundary`, for runs made with `decipher run --out DIR`. Gold is read only to play the
scholar and to score. Run from the repository root:

    python docs/scripts/boundary_review.py RUN_DIR [RUN_DIR ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from tui_decipher.bench.reviewer_simulation import answer_boundary
from tui_decipher.session.boundary import demand_range


def _gold(path: Path) -> list[bool]:
    if not path.exists():
        return []
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    column = rows[0].index("gold")
    return [r[column] == "1" for r in rows[1:]]


def _f1(ranked: list[bool], k: int, n_gold: int) -> float:
    return 100 * 2 * sum(ranked[:k]) / (k + n_gold) if k + n_gold else 0.0


def main(folders: list[str]) -> None:
    table = []
    for folder in map(Path, folders):
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
        ranked = _gold(folder / "proposals.tsv") + _gold(folder / "beyond_d.tsv")
        d, n_gold = summary["n_proposals"], summary["n_evaluated"]
        low, high = demand_range(summary["decisions"], len(ranked))
        row = {"before": _f1(ranked, d, n_gold)}
        for n in (10, 20):
            settled = answer_boundary(ranked, d, summary["decisions"], n)
            row[f"{n} judged"] = _f1(ranked, settled.demand, n_gold)
            row[f"D {n}"] = settled.demand
        at_gold = f"{_f1(ranked, n_gold, n_gold):.1f}" if len(ranked) >= n_gold else "-"
        table.append(row)
        print(f"{folder.name:28s} gold {n_gold:4d} D {d:4d} ({low}-{high}): F1 {row['before']:.1f}, "
              f"10 judged {row['10 judged']:.1f} (D {row['D 10']}), 20 judged {row['20 judged']:.1f} "
              f"(D {row['D 20']}), at the gold count {at_gold}")  # fmt: skip
    for key in ("before", "10 judged", "20 judged"):
        print(f"mean F1 {key}: {np.mean([r[key] for r in table]):.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
