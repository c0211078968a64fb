"""The character seq2seq P_theta(y | x) of Luo et al. (2019), section 3.1.

Because the decoder is fed the *expected* embedding of its previous output (no teacher forcing),
one decoding pass per lost word yields per-step distributions p_t(c) that score every known word
at once (see `scoring.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from ..corpora.charset import EOW_ID, PAD_ID, SOW_ID, UNK_ID

# Finite stand-in for -inf on impossible output symbols: keeps 0 * logp = 0 in the scoring matmul.
MASKED_LOGIT = -1e4


def norm_controlled_residual(c: torch.Tensor, h_rnn: torch.Tensor, ratio: float) -> torch.Tensor:
    """c + g * h_rnn with g = min(ratio * ||c|| / ||h_rnn||, 1), row-wise over the last dim.

    The paper's norm control: the recurrent part is shrunk so that ||g * h_rnn|| <= ratio * ||c||
    and can never drown the attention-weighted lost embedding c. c, h_rnn: (..., d) -> (..., d).
    """
    scale = ratio * c.norm(dim=-1) / h_rnn.norm(dim=-1).clamp_min(1e-8)
    gate = scale.clamp(max=1.0).unsqueeze(-1)  # (..., 1)
    return c + gate * h_rnn


@dataclass
class Decoded:
    """One decoding pass over a batch of lost words."""

    log_probs: torch.Tensor  # (n, T, n_known_chars) log p_t(c)
    attention: torch.Tensor  # (n, T, L) alpha_t over lost positions (EOW included)
    lost_lengths: torch.Tensor  # (n,) lost word lengths including EOW


class DecipherModel(nn.Module):
    """Universal character embedding + BiLSTM encoder + attentive LSTM decoder, output tied to E_y."""

    output_mask: torch.Tensor  # a buffer (register_buffer in __init__)

    def __init__(
        self,
        n_lost_chars: int,
        n_known_chars: int,
        n_universal: int = 50,
        embed_dim: int = 250,
        hidden_dim: int = 250,
        dropout: float = 0.3,
        residual: bool = True,
        norm_ratio: float = 0.2,
        tied_symbols: tuple[tuple[int, int], ...] = (),
    ) -> None:
        super().__init__()
        # (lost id, known id) pairs that start with one embedding (see `reset_parameters`).
        self.tied_symbols = tuple(tied_symbols)
        self.residual = residual
        self.norm_ratio = norm_ratio
        self.hidden_dim = hidden_dim
        # E_x = W_x U, E_y = W_y U: both languages live in one universal character space.
        self.universal = nn.Parameter(torch.empty(n_universal, embed_dim))  # U (n_u, d)
        self.lost_weight = nn.Parameter(torch.empty(n_lost_chars, n_universal))  # W_x (n_x, n_u)
        self.known_weight = nn.Parameter(torch.empty(n_known_chars, n_universal))  # W_y (n_y, n_u)
        self.encoder = nn.LSTM(embed_dim, hidden_dim, batch_first=True, bidirectional=True)
        self.decoder = nn.LSTMCell(2 * embed_dim, hidden_dim)
        self.attn = nn.Linear(hidden_dim, 2 * hidden_dim, bias=False)  # W_a, bilinear attention
        self.combine = nn.Linear(2 * hidden_dim + hidden_dim, embed_dim)  # [ctx; h_t] -> d
        self.drop = nn.Dropout(dropout)
        output_mask = torch.zeros(n_known_chars)
        output_mask[[PAD_ID, SOW_ID, UNK_ID]] = MASKED_LOGIT  # never emitted
        self.register_buffer("output_mask", output_mask, persistent=False)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Xavier init, LSTM forget-gate bias 1 (the periodic reset calls this)."""
        for p in (self.universal, self.lost_weight, self.known_weight):
            nn.init.xavier_uniform_(p)
        for name, p in self.named_parameters():
            if name.startswith(("encoder", "decoder")):
                if "weight" in name:
                    nn.init.xavier_uniform_(p)
                else:
                    nn.init.zeros_(p)
                    h = self.hidden_dim
                    p.data[h : 2 * h] = 1.0  # forget gate (torch gate order: i, f, g, o)
        for lin in (self.attn, self.combine):
            nn.init.xavier_uniform_(lin.weight)
            if lin.bias is not None:
                nn.init.zeros_(lin.bias)
        if self.tied_symbols:
            # A prior beyond the paper, for scripts written with one alphabet: a symbol both
            # languages use starts with one universal mixture, so the residual path initially
            # copies it. Training may pull the two apart.
            lost_ids = torch.tensor([i for i, _ in self.tied_symbols])
            known_ids = torch.tensor([j for _, j in self.tied_symbols])
            with torch.no_grad():
                self.known_weight[known_ids] = self.lost_weight[lost_ids]

    def lost_embeddings(self) -> torch.Tensor:
        return self.lost_weight @ self.universal  # (n_x, d)

    def known_embeddings(self) -> torch.Tensor:
        return self.known_weight @ self.universal  # (n_y, d)

    def forward(self, lost_ids: torch.Tensor, lost_lengths: torch.Tensor, steps: int) -> Decoded:
        """Decode `steps` output positions for each lost word.

        lost_ids: (n, L) lost symbol ids ending in EOW, padded; lost_lengths: (n,) incl. EOW.
        """
        n, length = lost_ids.shape
        e_x = self.lost_embeddings()
        e_y = self.known_embeddings()
        src_emb = e_x[lost_ids]  # (n, L, d)
        packed = pack_padded_sequence(self.drop(src_emb), lost_lengths.cpu(), batch_first=True, enforce_sorted=False)
        enc_packed, (h_n, c_n) = self.encoder(packed)
        enc, _ = pad_packed_sequence(enc_packed, batch_first=True, total_length=length)  # (n, L, 2H)
        # Decoder starts from the encoder's final state, the two directions summed (published code).
        h, c = h_n.sum(0), c_n.sum(0)  # (n, H)
        pad_mask = torch.arange(length, device=lost_ids.device)[None, :] >= lost_lengths[:, None]  # (n, L)
        enc_keys = enc  # (n, L, 2H)
        prev_out = src_emb.new_zeros(n, e_y.shape[1])  # h~_0 (n, d)
        prev_emb = e_y[SOW_ID].expand(n, -1)  # e_0 = E_y[SOW] (n, d)
        log_probs, attentions = [], []
        for _ in range(steps):
            h, c = self.decoder(self.drop(torch.cat([prev_out, prev_emb], dim=-1)), (h, c))
            scores = torch.bmm(enc_keys, self.attn(h).unsqueeze(-1)).squeeze(-1)  # (n, L)
            alpha = torch.softmax(scores.masked_fill(pad_mask, float("-inf")), dim=-1)  # (n, L)
            ctx = torch.bmm(alpha.unsqueeze(1), enc).squeeze(1)  # (n, 2H)
            h_rnn = F.leaky_relu(self.combine(self.drop(torch.cat([ctx, h], dim=-1))))  # (n, d)
            if self.residual:
                # c_t: attention-weighted lost embedding; rescale h_rnn so it cannot drown it.
                c_t = torch.bmm(alpha.unsqueeze(1), src_emb).squeeze(1)  # (n, d)
                out = norm_controlled_residual(c_t, h_rnn, self.norm_ratio)
            else:
                out = h_rnn
            logits = out @ e_y.T + self.output_mask  # (n, n_y)
            logp = torch.log_softmax(logits, dim=-1)
            log_probs.append(logp)
            attentions.append(alpha)
            prev_out = out
            prev_emb = logp.exp() @ e_y  # expected embedding of the previous output (n, d)
        return Decoded(
            log_probs=torch.stack(log_probs, dim=1),
            attention=torch.stack(attentions, dim=1),
            lost_lengths=lost_lengths,
        )


def build_model(
    n_lost_chars: int, n_known_chars: int, cfg, shared_symbols: tuple[tuple[int, int], ...] = ()
) -> DecipherModel:
    """A model sized from a DecipherConfig; `shared_symbols` (lost id, known id) are tied at
    initialisation when the config's `tie_shared_symbols` is on."""
    return DecipherModel(
        n_lost_chars,
        n_known_chars,
        n_universal=cfg.n_universal,
        embed_dim=cfg.embed_dim,
        hidden_dim=cfg.hidden_dim,
        dropout=cfg.dropout,
        residual=cfg.residual,
        norm_ratio=cfg.norm_ratio,
        tied_symbols=shared_symbols if cfg.tie_shared_symbols else (),
    )


__all__ = ["EOW_ID", "DecipherModel", "Decoded", "build_model", "norm_controlled_residual"]
