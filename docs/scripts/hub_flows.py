"""The paper's protocol and F1 at auto's own D, with and without the hub shift (engine/flow/hubs.py).

    python docs/scripts/hub_flows.py [--seed S] PAIR.cog|CORPUS_NAME ...

Runs auto on each corpus (default threads) and solves its final flows again on the final costs:
the protocol's flow (every lost word with a gold cognate matched) and the proposals' flow at the
run's D, each over the costs as they are and shifted for hubs (CSLS's column term, k = 10). The
"kept" column is what the code does: the protocol shifted, the proposals shifted only where D is
every lost word. A diagnosis (docs/dev-pairs.md, "Hubs"): gold only scores.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import tui_decipher.engine.methods.auto as auto
from tui_decipher.engine.corpora.registry import CorpusSpec, load_corpus
from tui_decipher.engine.flow import solve_sparsified
from tui_decipher.engine.flow.hubs import hub_shift
from tui_decipher.engine.methods import run_decipherment
from tui_decipher.engine.run.config import DecipherConfig


def final_costs(source: str, seed: int) -> tuple[np.ndarray, object, int, int]:
    """(the final costs, the corpus, D, C) of `decipher run --corpus SOURCE --seed SEED` in-process."""
    seen = {}
    finish = auto.finish_channel_result

    def grab(problem, result, fit, blend=None):  # the final costs, as auto's flows read them
        seen["cost"] = np.asarray(fit.cost, dtype=np.float64)
        return finish(problem, result, fit, blend)

    corpus = load_corpus(CorpusSpec(corpus=source)).corpus
    auto.finish_channel_result = grab
    try:
        result = run_decipherment(corpus, DecipherConfig(method="auto", seed=seed))
    finally:
        auto.finish_channel_result = finish
    return seen["cost"], corpus, result.demand, result.config.capacity


def scores(cost: np.ndarray, corpus, demand: int, capacity: int, shift: np.ndarray | None,
           shift_proposals: bool) -> tuple[float, float]:  # fmt: skip
    """(protocol accuracy, F1 at D) of the flows over `cost`, shifted where `shift` is given."""
    gold = {i: g for i, g in corpus.gold.items() if g}
    rows = np.array(sorted(gold))
    matched = solve_sparsified(cost[rows], len(rows), capacity, 5, "grown-top-k", column_shift=shift)
    pred = dict(zip(matched.lost.tolist(), matched.known.tolist(), strict=True))
    protocol = float(np.mean([pred.get(k, -1) in gold[r] for k, r in enumerate(rows)]))
    lengths = np.array([max(1, len(w)) for w in corpus.lost_words], dtype=np.float64)
    proposed = solve_sparsified(cost, demand, capacity, 5, "grown-top-k", row_scale=lengths,
                                column_shift=shift if shift_proposals else None)  # fmt: skip
    right = sum(j in gold.get(i, ()) for i, j in zip(proposed.lost.tolist(), proposed.known.tolist(), strict=True))
    return protocol, 2 * right / (demand + len(rows))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("corpora", nargs="+")
    args = parser.parse_args()
    table = []
    for source in args.corpora:
        cost, corpus, demand, capacity = final_costs(source, args.seed)
        shift = hub_shift(cost)
        raw = scores(cost, corpus, demand, capacity, None, False)
        everywhere = scores(cost, corpus, demand, capacity, shift, True)
        kept = scores(cost, corpus, demand, capacity, shift, demand >= len(corpus.lost_words))
        table.append(raw + everywhere + kept)
        print(
            f"{Path(source).stem:24s} protocol {100 * raw[0]:5.1f} -> {100 * kept[0]:5.1f}  F1 at D {demand}: "
            f"{100 * raw[1]:5.1f}, shifted everywhere {100 * everywhere[1]:5.1f}, kept {100 * kept[1]:5.1f}",
            flush=True,
        )
    mean = 100 * np.mean(table, axis=0)
    print(
        f"mean: protocol {mean[0]:.1f} -> {mean[4]:.1f}; F1 {mean[1]:.1f}, shifted everywhere {mean[3]:.1f}, "
        f"kept {mean[5]:.1f}"
    )


if __name__ == "__main__":
    main()
