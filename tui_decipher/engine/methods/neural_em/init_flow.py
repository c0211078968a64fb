"""f^(0), the flow the first M-step trains on (`init_flow`): uniform, or decayed towards a matching
that needs no model and no gold."""

from __future__ import annotations

import numpy as np
import torch

from ...channels.restarts import fit_best_channel
from ...corpora.charset import shared_symbols
from ...evaluation.baseline import edit_distance_costs
from ...flow import FlowSolution, flow_matrix
from .context import EMContext


def initial_flow(ctx: EMContext, restart: int = 0) -> torch.Tensor:
    """f^(0) (n_lost, n_known): uniform, N / (|X| |Y|) (paper), or the decayed mix
    gamma * uniform + (1 - gamma) * F_0, F_0 the min-cost flow (D = N, capacity C) of a cost that
    needs no model and no gold:

    - `init_flow = "edit-distance"`: the normalised edit distance between the words. Alphabets
      that share no symbol (Linear B and Greek) make every distance 1, an arbitrary matching:
      the flow stays uniform there.
    - `init_flow = "channel"`: -log P(x_i | y_j) under a small character channel trained on the
      lexicon objective (engine/channels/), one per restart (its own seed), across any scripts.
    """
    uniform = ctx.demand.value / (ctx.n_lost * ctx.n_known)
    flow = torch.full((ctx.n_lost, ctx.n_known), uniform, device=ctx.device)
    matching: FlowSolution | None = None
    # shared_symbols always pairs end-of-word with itself: more than that means a shared letter.
    if ctx.cfg.init_flow == "edit-distance" and len(shared_symbols(ctx.lost_charset, ctx.known_charset)) > 1:
        if ctx.edit_distance_matching is None:
            with ctx.timer("flow"):
                cost = edit_distance_costs(ctx.corpus.lost_words, ctx.corpus.known_words).astype(np.float64)
            ctx.edit_distance_matching = ctx.solve(cost, ctx.demand.value)
        matching = ctx.edit_distance_matching
    elif ctx.cfg.init_flow == "channel":
        matching = ctx.solve(fit_best_channel(ctx, restart).cost, ctx.demand.value)
    if matching is not None:
        matched = torch.from_numpy(flow_matrix(matching, ctx.n_lost, ctx.n_known)).to(ctx.device)
        flow = ctx.cfg.flow_decay * flow + (1.0 - ctx.cfg.flow_decay) * matched
    return flow
