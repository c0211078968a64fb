"""Beyond the paper: the "pieces" channel, for a syllabary read against an alphabet.

The channel is the classic decipherment story run backwards from the
paper's model: a known word y is *written* as a lost word x. y is cut, left to right, into pieces
of one or two letters, and each piece writes one lost symbol; a letter may also be left unwritten
(Linear B drops final and cluster consonants, ko-no-so for Knossos). A piece may also span three
letters a b c and write a c's symbol, b unwritten inside it: a known alphabet that spells one sound
with two letters (kh, ph, th in a transliteration) writes "kha" where the script writes the sign
of "ka", and no cut into one- or two-letter pieces reads that sign as "ka". So

    P(x | y) = sum over segmentations of prod_pieces P(action | letter) P(symbol | piece)

with P(symbol | a, b) = softmax_symbols(theta1[a] + theta2[b]) (b = "none" for a one-letter
piece; a gapped piece a b c writes as a, c does) and P(action | letter) over {drop, one-letter
piece, two-letter piece, gapped piece}. That is about
2 x |known alphabet| x |lost alphabet| numbers: it cannot memorise which lost word goes with
which known word, which is what the seq2seq model does from the uniform flow, so its best fit is
a character map. Its lattice, with the gradient written out, is channels/pieces_lattice.py.

It is trained by `channels.trainer.fit_channel` (the lexicon or the transport objective). Its
costs -log P(x_i | y_j) go through the same min-cost flow as the neural model's:
`methods.neural_em.initial_flow` mixes that flow into f^(0) (`init_flow = "channel"`), and
`methods.channel` deciphers with them alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

from ..constraints.sign_values import PIN_STRENGTH
from ..corpora.charset import SPECIALS, Charset
from ..corpora.corpus import Word
from ..run.config import DecipherConfig
from .alignment import Step, best_path
from .compiled import runs_compiled
from .lattice import encode_padded, scaled_log_probs, scaled_pair_log_probs
from .pieces_lattice import _alphas, _Lattice, _pair_alphas, _PairedLattice
from .pieces_scores import CompiledLattice, CompiledPairs, compiled_log_probs, compiled_pair_log_probs

INIT_SCALE = DecipherConfig.channel_init_scale  # one default, the config field's

DROP, ONE, TWO, GAP = 0, 1, 2, 3  # actions at a known letter (GAP: a piece of three, its middle unwritten)
# An action's logit where the channel never takes it: e^-1e4 is 0 in any float and its gradient 0,
# so training leaves it there.
NEVER = -1e4
# The gapped piece's logit in a channel without them (built so, or saved before they existed, with
# three actions): such a channel scores, trains and refines as it did before them, and its lattices
# skip them (`gapped`).
NO_GAP = NEVER


class CharacterChannel(nn.Module):
    """P(x | y): a known word y writes a lost word x, one or two letters per lost symbol."""

    # A random start (or a searched map) ranks no cognate first. Class-level, so that a channel
    # pickled before this existed (a stopped run's stage) has it too.
    lists_from_start: bool = False

    def __init__(
        self, n_lost: int, n_known: int, generator: torch.Generator, init_scale: float = INIT_SCALE, gaps: bool = False
    ) -> None:
        """`gaps`: whether gapped pieces start as likely as the other actions (or at NO_GAP, where
        training leaves them: their gradient is 0 there, so the channel is the one without them)."""
        super().__init__()
        self.none = n_known  # the second-letter id of a one-letter piece (and padding of known words)

        def param(*shape: int) -> nn.Parameter:
            return nn.Parameter(init_scale * torch.randn(*shape, generator=generator))

        self.first = param(n_known + 1, n_lost)  # theta1: a piece's first letter -> lost symbol
        self.second = param(n_known + 1, n_lost)  # theta2: its second letter (or none) -> lost symbol
        action = torch.zeros(n_known + 1, 4)  # drop / one / two letters / gapped
        if not gaps:
            action[:, GAP] = NO_GAP
        self.action = nn.Parameter(action)
        # Known sign values (pin_signs): offsets on the logits of one-letter pieces (K+1, S) and of
        # two-letter pieces (K+1, K+1, S); None when no value is known.
        self.pinned_one: torch.Tensor | None = None
        self.pinned_two: torch.Tensor | None = None

    def _load_from_state_dict(self, state_dict: dict, prefix: str, *args: Any, **kwargs: Any) -> None:
        # A channel saved before gapped pieces (three actions) loads with the gap at NO_GAP; one
        # unpickled from then (a stopped run's stage) keeps its three and loads its own as they are.
        action = state_dict.get(prefix + "action")
        if action is not None and self.action.shape[-1] > GAP:
            state_dict[prefix + "action"] = _with_gap(action)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def log_actions(self) -> torch.Tensor:
        """log P(action | letter), (K+1, 4): drop, one letter, two letters, gapped (a channel
        unpickled from before gapped pieces, three actions, reads the gap as NO_GAP)."""
        return torch.log_softmax(_with_gap(self.action), -1)

    def pin_signs(self, values: Sequence[tuple[int, tuple[int, ...]]]) -> None:
        """Known sign values (lost symbol id, the known letter ids of its piece): a symbol's other
        pieces start PIN_STRENGTH nats below its values' (engine/constraints/sign_values.py), and
        training leaves the symbol's own logits where they are: the words can still make a piece
        write it, but only by lowering the other symbols that piece writes."""
        n_known, n_lost = self.first.shape
        one, two = torch.zeros(n_known, n_lost), torch.zeros(n_known, n_known, n_lost)  # built on the CPU
        for symbol in {s for s, _ in values}:
            one[:, symbol] = -PIN_STRENGTH
            two[:, :, symbol] = -PIN_STRENGTH
        for symbol, letters in values:
            if len(letters) == 1:
                one[letters[0], symbol] = 0.0
            else:
                two[letters[0], letters[1], symbol] = 0.0
        device = self.first.device
        self.pinned_one, self.pinned_two = (one.to(device), two.to(device)) if values else (None, None)

    def forget_signs(self, symbols: Sequence[int]) -> None:
        """Zero what training taught the lost `symbols` (their columns of theta1 and theta2): a sign
        pinned on a trained channel then reads as its values say, not as the words had taught it."""
        with torch.no_grad():
            self.first[:, list(symbols)] = 0.0
            self.second[:, list(symbols)] = 0.0

    def _held(self, theta: torch.Tensor) -> torch.Tensor:
        """`theta` (K+1, S) with the pinned symbols' columns out of training (see `pin_signs`)."""
        if self.pinned_one is None:
            return theta
        pinned = (self.pinned_one < 0).any(0)  # (S,): the symbols given values
        return torch.where(pinned, theta.detach(), theta)

    def _one_logits(self) -> torch.Tensor:
        """The logits of P(symbol | one-letter piece): (K+1, S)."""
        logits = self._held(self.first) + self._held(self.second)[self.none]
        return logits if self.pinned_one is None else logits + self.pinned_one

    def _two_logits(self, first: torch.Tensor, second: torch.Tensor) -> torch.Tensor:
        """The logits of P(symbol | two-letter piece) for letter ids `first`, `second` (any equal
        shapes): (..., S)."""
        logits = self._held(self.first)[first] + self._held(self.second)[second]
        return logits if self.pinned_two is None else logits + self.pinned_two[first, second]

    def gapped(self) -> bool:
        """Whether any gapped piece has a probability above 0 (a channel built without them, or saved
        before them, has none: its lattices skip them)."""
        return self.action.shape[-1] > GAP and bool(self.action[:, GAP].max() > NO_GAP / 2)

    def _gap_firsts(self, known: torch.Tensor) -> torch.Tensor:
        """The first letters of the known words' (n, M) gapped pieces, (n, M-2), their last ones two
        letters on; (n, 0) where the channel has none (its lattices skip them)."""
        return known[:, :-2] if self.gapped() else known[:, :0]

    def _letter_tables(self, action: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """log P(ONE) + log P(symbol | letter) for every letter, (K+1, S), log P(TWO) + log
        P(symbol | letter pair) for every pair (the action of its first letter), (K+1, K+1, S), and
        the same pairs' log P(GAP) + log P(symbol | pair) (a gapped piece's first and last letter;
        (0, 0, S) where the channel has none), from the log actions `action` (K+1, 4): what the
        compiled lattices read."""
        letters = torch.arange(self.none + 1, device=action.device)
        log_one = torch.log_softmax(self._one_logits(), -1) + action[:, ONE, None]
        log_pair = torch.log_softmax(self._two_logits(letters[:, None], letters[None, :]), -1)
        log_gap = log_pair + action[:, GAP, None, None] if self.gapped() else log_pair[:0, :0]
        return log_one, log_pair + action[:, TWO, None, None], log_gap

    @classmethod
    def build(
        cls,
        lost_charset: Charset,
        known_charset: Charset,
        generator: torch.Generator,
        init_scale: float,
        copy_bias: float,
        gaps: bool = False,
    ) -> CharacterChannel:
        """An untrained pieces channel for two charsets, with gapped pieces where `gaps`;
        `copy_bias` does not apply (no letter is written as itself when a symbol is a piece of one
        or two letters)."""
        return cls(len(lost_charset), len(known_charset), generator, init_scale, gaps)

    @property
    def sizes(self) -> tuple[int, int]:
        """(lost symbols, known letters) of the charsets it was built for."""
        return self.first.shape[1], self.none

    def log_prob(
        self, lost: torch.Tensor, lost_len: torch.Tensor, known: torch.Tensor, known_len: torch.Tensor
    ) -> torch.Tensor:
        """log P(x_i | y_j) for every pair: lost (n_x, N) ids, known (n_y, M) ids padded with
        `self.none`; lengths without padding. Returns (n_x, n_y)."""
        big_n, big_m = int(lost_len.max()), int(known_len.max())
        lost, known = lost[:, :big_n], known[:, :big_m]
        action = self.log_actions()  # (K+1, 4)
        with_grad = torch.is_grad_enabled() and self.first.requires_grad
        if runs_compiled(action):
            # On the CPU in float32 (as runs train; a float64 channel, as tests build, keeps the
            # tensors' lattice) the same lattice runs compiled, each lost word's cells in cache
            # (pieces_scores.py), from the tables of every letter (pair), as `log_prob_pairs` reads
            # them: the kernels gather each known word's pieces and scatter their gradients back.
            tables = (*self._letter_tables(action), action[:, DROP])
            if with_grad:
                return CompiledLattice.apply(*tables, lost, lost_len, known, known_len)
            return compiled_log_probs(*tables, lost, lost_len, known, known_len)
        drop, take_one, take_two, take_gap = (action[known, a] for a in (DROP, ONE, TWO, GAP))  # (n_y, M) each
        # log P(action) + log P(symbol | piece) for the piece starting at each known letter:
        # (n_y, M, S), (n_y, M-1, S) and, gapped, (n_y, M-2, S).
        one = torch.log_softmax(self._one_logits(), -1)[known] + take_one[:, :, None]
        two = torch.log_softmax(self._two_logits(known[:, :-1], known[:, 1:]), -1)  # (n_y, M-1, S)
        two = two + take_two[:, :-1, None]
        gapped = self._gap_firsts(known)
        gap = torch.log_softmax(self._two_logits(gapped, known[:, 2 : 2 + gapped.shape[1]]), -1)  # (n_y, M-2, S)
        gap = gap + take_gap[:, : gapped.shape[1], None]
        if with_grad:
            return _Lattice.apply(one, two, gap, drop, lost, lost_len, known_len)
        lattice = _alphas(one, two, gap, drop, lost)
        return scaled_log_probs(lattice.alphas, lattice.log_c, lost_len, known_len)[0]

    def log_prob_pairs(
        self, lost: torch.Tensor, lost_len: torch.Tensor, known: torch.Tensor, known_len: torch.Tensor
    ) -> torch.Tensor:
        """log P(x_p | y_p) for aligned pairs only: lost (P, N) and known (P, M) ids as in
        `log_prob`, row p with row p. Returns (P,): `log_prob`'s diagonal, without its other cells."""
        big_n, big_m = int(lost_len.max()), int(known_len.max())
        lost, known = lost[:, :big_n], known[:, :big_m]
        action = self.log_actions()  # (K+1, 4)
        letters = torch.arange(self.none + 1, device=known.device)
        if runs_compiled(action):
            # The same lattice compiled (pieces_scores.py; float32 on the CPU, as runs train): it reads
            # each pair's pieces from the tables of every letter (pair) itself, (K+1, S), (K+1, K+1, S)
            # twice and (K+1,), and writes their gradients back there.
            tables = (*self._letter_tables(action), action[:, DROP])
            if torch.is_grad_enabled() and self.first.requires_grad:
                return CompiledPairs.apply(*tables, lost, lost_len, known, known_len)
            return compiled_pair_log_probs(*tables, lost, lost_len, known, known_len)
        drop, take_one, take_two, take_gap = (action[known, a] for a in (DROP, ONE, TWO, GAP))  # (P, M) each
        # Each pair's pieces at each known letter, read at each symbol of its own lost word:
        # log P(action) + log P(symbol | piece), (P, M, N) and (P, M-1, N). Two-letter pieces are read
        # from a table of every letter pair (K+1, K+1, S): a row for each pair's letters (P x M rows
        # of S symbols) cost more than the lattice itself on Linear B.
        one = torch.log_softmax(self._one_logits(), -1)[known[:, :, None], lost[:, None, :]] + take_one[:, :, None]
        pair = torch.log_softmax(self._two_logits(letters[:, None], letters[None, :]), -1)  # (K+1, K+1, S)
        two = pair[known[:, :-1, None], known[:, 1:, None], lost[:, None, :]] + take_two[:, :-1, None]
        gapped = self._gap_firsts(known)
        gap = pair[gapped[:, :, None], known[:, 2 : 2 + gapped.shape[1], None], lost[:, None, :]]
        gap = gap + take_gap[:, : gapped.shape[1], None]
        n_symbols = self.sizes[0]
        if torch.is_grad_enabled() and self.first.requires_grad:
            return _PairedLattice.apply(one, two, gap, drop, lost_len, known_len, n_symbols)
        lattice = _pair_alphas(one, two, gap, drop, n_symbols)
        return scaled_pair_log_probs(lattice.alphas, lattice.log_c, lost_len, known_len)[0]

    @torch.no_grad()
    def best_paths(self, lost: Sequence[Sequence[int]], known: Sequence[Sequence[int]]) -> list[list[Step]]:
        """Each pair's (lost[p], known[p] ids) most probable reading through this lattice
        (`alignment.best_path`): a letter dropped (1, 0), a one-letter piece writing a symbol (1, 1),
        a two-letter one (2, 1) or a gapped one (3, 1), each with its log P(action) + log P(symbol |
        piece)."""
        action = self.log_actions().cpu().tolist()  # (K+1, 4)
        one = torch.log_softmax(self._one_logits(), -1).cpu().tolist()  # (K+1, S)
        letters = torch.arange(self.none + 1, device=self.first.device)
        two_t = torch.log_softmax(self._two_logits(letters[:, None], letters[None, :]), -1)  # (K+1, K+1, S)
        two = two_t.cpu().tolist()

        def path(x: Sequence[int], y: Sequence[int]) -> list[Step]:
            def into(m: int, k: int) -> list[Step]:
                if m == 0:
                    return []
                a = y[m - 1]
                steps: list[Step] = [(1, 0, action[a][DROP])]
                if k >= 1:
                    steps.append((1, 1, action[a][ONE] + one[a][x[k - 1]]))
                    if m >= 2:
                        steps.append((2, 1, action[y[m - 2]][TWO] + two[y[m - 2]][a][x[k - 1]]))
                    if m >= 3:
                        steps.append((3, 1, action[y[m - 3]][GAP] + two[y[m - 3]][a][x[k - 1]]))
                return steps

            return best_path(len(y), len(x), into)

        return [path(x, y) for x, y in zip(lost, known, strict=True)]

    @torch.no_grad()
    def sample(self, known: list[int], generator: torch.Generator, tries: int = 100) -> list[int]:
        """A lost word written from the known word `known` (letter ids): x ~ P(x | y), as lost
        symbol ids (empty when every letter was dropped). The channel leaks mass (a two-letter
        piece at the last letter, a special symbol written); a draw that takes it is drawn again,
        so words come in proportion to P(x | y)."""
        action = self.log_actions().exp().cpu()  # (K+1, 4); drawn with a CPU generator
        if not self.gapped():  # three actions, drawn as they were before gapped pieces
            action = action[:, :GAP]
        for _ in range(tries):
            out: list[int] = []
            m = 0
            while m < len(known):
                act = int(torch.multinomial(action[known[m]], 1, generator=generator))
                if act == DROP:
                    m += 1
                    continue
                span = {ONE: 1, TWO: 2, GAP: 3}[act]
                if m + span > len(known):  # a piece past the word's end: the leaked mass
                    break
                if act == ONE:
                    logits = self._one_logits()[known[m]]
                else:  # a two-letter or gapped piece: its first and last letters
                    logits = self._two_logits(torch.tensor(known[m]), torch.tensor(known[m + span - 1]))
                symbols = torch.softmax(logits, -1).cpu()
                out.append(int(torch.multinomial(symbols, 1, generator=generator)))
                m += span
            if m >= len(known) and all(i >= len(SPECIALS) for i in out):
                return out
        return []

    @torch.no_grad()
    def character_map(
        self,
        known_words: Sequence[Word],
        lost_charset: Charset,
        known_charset: Charset,
        top: int = 5,
    ) -> dict[str, list[tuple[str, float]]]:
        """Lost symbol -> the known pieces (one or two letters) that write it, best first, with
        P(piece | symbol) from the channel: each piece weighted by how often the known words hold it,
        the chance a letter starts such a piece, and P(symbol | piece). A syllabary reads as
        syllables (a Linear B sign as "ko"), an alphabet as letters. A gapped piece (a b c, b
        unwritten) reads as its pair a c, whose symbol it writes: "kha" read as "ka". An edit
        channel reads each symbol as the letters written as it (engine/edit_self.py)."""
        k = self.none  # known ids 0..k-1 (specials included: they never occur, so they weigh nothing)
        known, known_len = encode_padded(known_words, known_charset, k)
        positions = torch.arange(known.shape[1])[None, :]
        letters = known[positions < known_len[:, None]]
        pairs = known[:, :-1] * k + known[:, 1:]  # (n_y, M-1): a two-letter piece's id
        pairs = pairs[positions[:, :-1] + 1 < known_len[:, None]]
        gapped = known[:, :-2] * k + known[:, 2:]  # (n_y, M-2): a gapped piece's pair's id
        gapped = gapped[positions[:, :-2] + 2 < known_len[:, None]]
        action = self.log_actions()[:k].cpu()  # (k, 4)
        one = torch.log_softmax(self._one_logits()[:k], -1).cpu()  # (k, S)
        letters_k = torch.arange(k, device=self.first.device)
        two = torch.log_softmax(self._two_logits(letters_k[:, None], letters_k[None, :]), -1).reshape(k * k, -1).cpu()
        one_weight = torch.bincount(letters, minlength=k).double().log() + action[:, ONE].double()  # (k,)
        two_weight = torch.logaddexp(  # a pair's symbol written by the two-letter piece or a gapped one
            torch.bincount(pairs, minlength=k * k).double().log() + action[:, TWO].double().repeat_interleave(k),
            torch.bincount(gapped, minlength=k * k).double().log() + action[:, GAP].double().repeat_interleave(k),
        )  # fmt: skip
        joint = torch.cat([one_weight[:, None] + one.double(), two_weight[:, None] + two.double()])  # (k + k*k, S)
        posterior = torch.softmax(joint, 0)  # P(piece | lost symbol), one column per symbol
        names = [known_charset.symbols[a] for a in range(k)]
        names += [names[a] + names[b] for a in range(k) for b in range(k)]
        out: dict[str, list[tuple[str, float]]] = {}
        for s in range(len(SPECIALS), len(lost_charset)):
            values, idx = posterior[:, s].topk(min(top, posterior.shape[0]))
            # Only readings with any probability: a rare symbol would otherwise list pieces of
            # probability 0, the never-written specials among them.
            out[lost_charset.symbols[s]] = [
                (names[int(j)], float(v)) for v, j in zip(values, idx, strict=True) if v > 0
            ]
        return out


def _with_gap(action: torch.Tensor) -> torch.Tensor:
    """Actions (K+1, 4) as they are, or (K+1, 3) saved before gapped pieces with the gap at NO_GAP."""
    if action.shape[-1] > GAP:
        return action
    return torch.cat([action, action.new_full((action.shape[0], 1), NO_GAP)], -1)
