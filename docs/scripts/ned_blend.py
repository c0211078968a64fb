"""The protocol accuracy of auto's final costs blended with the normalised edit distance.

    python docs/scripts/ned_blend.py OUTDIR PAIR.cog ...

Runs auto on each pair (seed 1, default threads) and scores, by the paper's protocol, its final
costs plus lambda times each pair's normalised edit distance, for each lambda in LAMBDAS. A
diagnosis (docs/dev-pairs.md, "Three ideas measured on the dev pairs and not kept"): gold only
scores the blends, and choosing lambda by it is not a figure a user gets.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from rapidfuzz.distance import Levenshtein

import tui_decipher.engine.methods.auto as auto
from tui_decipher.engine.corpora.corpus import read_cog
from tui_decipher.engine.methods import run_decipherment
from tui_decipher.engine.run.config import DecipherConfig

LAMBDAS = (0, 1, 2, 4, 8, 16, 1000)


def blended(path: str) -> tuple[float, dict[int, float]]:
    """(the run's own protocol accuracy, the accuracy at each lambda) for one pair."""
    seen = {}
    finish = auto.finish_channel_result

    def grab(problem, result, fit, blend=None):  # the final costs, as auto scores them
        seen["cost"], seen["problem"] = np.asarray(fit.cost, dtype=np.float64), problem
        return finish(problem, result, fit, blend)

    auto.finish_channel_result = grab
    try:
        corpus = read_cog(path)
        result = run_decipherment(corpus, DecipherConfig(method="auto", seed=1))
    finally:
        auto.finish_channel_result = finish
    ned = np.array([[Levenshtein.normalized_distance(a, b) for b in corpus.known_words] for a in corpus.lost_words])
    problem, cost = seen["problem"], seen["cost"]
    return result.accuracy, {lam: problem.evaluate(cost.argmin(1), cost + lam * ned)[0] for lam in LAMBDAS}


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for path in sys.argv[2:]:
        accuracy, blends = blended(path)
        name = Path(path).stem
        (out / f"{name}.json").write_text(json.dumps({"acc": accuracy, "blend": blends}), encoding="utf-8")
        print(name, f"{100 * accuracy:.1f}", " ".join(f"{lam}:{100 * a:.1f}" for lam, a in blends.items()), flush=True)


if __name__ == "__main__":
    main()
