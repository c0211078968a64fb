"""What a finished restart gives a reviewer: the proposals (the final flow, each pair with its
alternatives and attention grid) and the character map read from the attention."""

from __future__ import annotations

import math

import numpy as np
import torch

from ...channels.alignment import attention_path
from ...corpora.charset import EOW_ID, SPECIALS
from ...neural.model import DecipherModel
from ..base import Proposal
from .context import EMContext, _RestartState


def character_map(ctx: EMContext, model: DecipherModel, top: int = 5) -> dict[str, list[tuple[str, float]]]:
    """Lost symbol -> its top known symbols with probabilities, from soft alignments.

    Each decoding step's output distribution p_t(c) is credited to the lost positions it attends
    to (alpha_t), weighted by the chance the word has not yet ended; counts are summed over the
    lost vocabulary and normalised per lost symbol.
    """
    n_lost_chars, n_known_chars = len(ctx.lost_charset), len(ctx.known_charset)
    counts = torch.zeros(n_lost_chars, n_known_chars)
    model.eval()
    with torch.no_grad():
        for start in range(0, len(ctx.lost), ctx.cfg.score_chunk):
            part = ctx.lost.slice(start, start + ctx.cfg.score_chunk)
            dec = model(part.ids, part.lengths, ctx.known.steps)
            probs = dec.log_probs.exp().cpu()  # (n, T, C)
            ended = torch.cumprod(1.0 - probs[:, :, EOW_ID], dim=1)
            alive = torch.cat([torch.ones_like(ended[:, :1]), ended[:, :-1]], dim=1)  # (n, T)
            onehot = torch.nn.functional.one_hot(part.ids.cpu(), n_lost_chars).float()  # (n, L, n_x)
            align = dec.attention.cpu() @ onehot  # (n, T, n_x)
            counts += torch.einsum("ntx,ntc->xc", align * alive[:, :, None], probs)
    counts[:, : len(SPECIALS)] = 0.0  # keep real known symbols only
    result: dict[str, list[tuple[str, float]]] = {}
    for x in range(len(SPECIALS), n_lost_chars):
        row = counts[x]
        total = float(row.sum())
        if total <= 0:
            continue
        probs_row = row / total
        values, idx = probs_row.topk(min(top, ctx.known_charset.n_real))
        result[ctx.lost_charset.symbols[x]] = [
            (ctx.known_charset.symbols[int(j)], float(v)) for v, j in zip(values, idx, strict=True)
        ]
    return result


def proposals(ctx: EMContext, state: _RestartState, n_alternatives: int = 5) -> list[Proposal]:
    """The final flow with D = N: one proposed known word per covered lost word, best first.

    Each proposal carries the model's top alternative known words and its attention grid, so a
    front end can explain it without the model.
    """
    if state.scores is None:
        return []
    cost = state.cost if state.cost is not None else (-state.scores.log_prob).numpy().astype(np.float64)
    solution = ctx.solve(cost, ctx.demand.value)
    log_prob = state.scores.log_prob  # (n_lost, n_known)
    known_len = ctx.known.lengths.cpu()  # incl. EOW

    def per_symbol(i: int, j: int) -> float:
        return float(log_prob[i, j].double() / int(known_len[j]))

    # Rank alternatives in the table's own precision; only the reported scores are computed in double.
    _, top_known = (log_prob / known_len[None, :]).topk(min(n_alternatives, ctx.n_known), dim=1)  # (n_lost, k)
    pairs = list(zip(solution.lost.tolist(), solution.known.tolist(), strict=True))
    grids = _attention_grids(ctx, state.model, pairs)
    out = []
    for (i, j), grid in zip(pairs, grids, strict=True):
        gold = (j in ctx.corpus.gold.get(i, ())) if ctx.corpus.has_gold else None
        alternatives = [(k, math.exp(per_symbol(i, k))) for k in top_known[i].tolist()]
        reading = attention_path(ctx.corpus.lost_words[i], ctx.corpus.known_words[j], grid)
        out.append(Proposal(i, j, math.exp(per_symbol(i, j)), float(cost[i, j]), gold, alternatives, grid, reading))
    out.sort(key=lambda p: (-p.score, p.lost))
    return out


@torch.no_grad()
def _attention_grids(ctx: EMContext, model: DecipherModel, pairs: list[tuple[int, int]]) -> list[list[list[float]]]:
    """alpha for each (lost, known) pair, cut to (|y| + 1, |x| + 1) and rounded for storage."""
    was_training = model.training
    model.eval()
    lengths = ctx.known.lengths.tolist()
    out: list[list[list[float]]] = []
    chunk = ctx.cfg.score_chunk
    for start in range(0, len(pairs), chunk):
        part = pairs[start : start + chunk]
        rows = torch.tensor([i for i, _ in part], dtype=torch.long, device=ctx.lost.ids.device)
        ids, lost_len = ctx.lost.ids[rows], ctx.lost.lengths[rows]
        ids = ids[:, : int(lost_len.max())]
        attention = model(ids, lost_len, ctx.known.steps).attention.cpu()  # (n, T, L)
        for n, (_, j) in enumerate(part):
            grid = attention[n, : lengths[j], : int(lost_len[n])]
            out.append([[round(float(v), 4) for v in row] for row in grid])
    model.train(was_training)
    return out
