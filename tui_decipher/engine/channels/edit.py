"""Beyond the paper: an edit channel, a character channel for two languages written letter by letter.

`channel_kind = "edit"`. The pieces channel (engine/channels/pieces.py) writes each lost symbol from one
or two known letters and never writes a symbol from nothing, which suits a syllabary read against
an alphabet; between two Latin alphabets (Spanish and Italian) words also gain and lose sounds
anywhere, and most letters are written as themselves. This is the classic stochastic edit
distance (Ristad and Yianilos 1998) as a channel P(x | y): the known word y is read left to right;
before each known letter (and before the end) the channel may insert lost symbols, then the letter
is either written as one lost symbol or dropped:

    P(x | y) = sum over alignments of prod_steps P(operation | next known letter) P(symbol | ...)

with operations {insert, write, drop} at a letter and {insert, stop} at the end, P(symbol | letter)
for a written letter and P(symbol | insert, next letter) for an inserted one. About
2 x |known alphabet| x |lost alphabet| numbers again, so its best fit is a character map, not a
memorised lexicon.

The copy prior: where both alphabets hold a symbol, its write logit starts `copy_bias` above the
others, so the untrained channel is close to a plain edit distance (on Romance es -> it its
matching already scores about the edit-distance baseline) and training learns the
correspondences that distance misses (Spanish "ue" for Italian "o" as an insertion and a
substitution, dropped doubled consonants). Alphabets that share nothing start from no prior, unless
a map reads one's signs as the other's letters (`Charset.read`: a cipher read through its own map).
It is trained exactly as the pieces channel (`fit_channel`, either objective).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from ..constraints.sign_values import PIN_STRENGTH
from ..corpora.charset import SPECIALS, Charset
from ..corpora.corpus import Word
from .alignment import Step, best_path
from .compiled import runs_compiled
from .edit_lattice import _alphas, _Lattice, _pair_alphas, _PairedLattice
from .edit_scores import CompiledLattice, CompiledPairs, compiled_log_probs, compiled_pair_log_probs
from .lattice import NEG, encode_padded, scaled_log_probs, scaled_pair_log_probs

INSERT, WRITE, DROP = 0, 1, 2  # operations before/at a known letter; at the end: INSERT, STOP (= WRITE)
STOP = WRITE


class EditChannel(nn.Module):
    """P(x | y): a known word y writes a lost word x letter by letter (write, drop, insert)."""

    special: torch.Tensor  # a buffer (register_buffer in __init__)
    # Set in __init__ from the copy prior. A class-level default: a channel pickled before this
    # existed (a stopped run's stage) was built by auto, which builds it on one alphabet only.
    lists_from_start: bool = True

    def __init__(
        self, lost_charset: Charset, known_charset: Charset, generator: torch.Generator, init_scale: float,
        copy_bias: float,
    ) -> None:  # fmt: skip
        super().__init__()
        n_lost, n_known = len(lost_charset), len(known_charset)
        self.none = n_known  # the end of a known word (and its padding)

        def param(*shape: int) -> torch.Tensor:
            return init_scale * torch.randn(*shape, generator=generator)

        write = param(n_known + 1, n_lost)
        copied = 0
        # A symbol is copied from the letter it is read as: itself where both alphabets hold it,
        # or a learnt map's letter (`Charset.read`; in either direction, the reverse channel's too).
        letter_of = {known_charset.read(t): i for i, t in enumerate(known_charset.symbols) if i >= len(SPECIALS)}
        for s, symbol in enumerate(lost_charset.symbols):
            if s >= len(SPECIALS) and (letter := letter_of.get(lost_charset.read(symbol))) is not None:
                write[letter, s] += copy_bias
                copied += 1
        # With the copy prior the untrained channel ranks words spelled alike first, as an edit
        # distance does: shortlists drawn from its first step already hold most cognates.
        self.lists_from_start = copy_bias > 0 and copied > 0
        self.write = nn.Parameter(write)  # known letter -> the lost symbol it is written as
        self.insert = nn.Parameter(param(n_known + 1, n_lost))  # next known letter (or end) -> inserted symbol
        # The special symbols (padding, start, end, unknown) are never written.
        self.register_buffer("special", (torch.arange(n_lost) < len(SPECIALS)).float() * NEG, persistent=False)
        operation = torch.zeros(n_known + 1, 3)
        operation[:, WRITE] = 2.0  # most letters are written: a start near a plain edit distance
        self.operation = nn.Parameter(operation)  # insert / write / drop; at the end insert / stop
        self.pinned: torch.Tensor | None = None  # known sign values (pin_signs): offsets on the write logits

    def pin_signs(self, values: Sequence[tuple[int, tuple[int, ...]]]) -> None:
        """Known sign values (lost symbol id, known letter ids): a symbol's other letters, and its
        insertion, start PIN_STRENGTH nats below its values' (engine/constraints/sign_values.py),
        and training leaves the symbol's own logits where they are. A letter may still write other
        symbols (three Ugaritic alephs write one Hebrew aleph).
        One-letter values only."""
        if any(len(letters) != 1 for _, letters in values):
            raise ValueError("the edit channel writes a lost symbol from one known letter: a value has two")
        n_known, n_lost = self.write.shape
        mask = torch.zeros(2, n_known, n_lost)  # [write, insert]
        for symbol in {s for s, _ in values}:
            mask[:, :, symbol] = -PIN_STRENGTH
        for symbol, (letter,) in values:
            mask[0, letter, symbol] = 0.0
        self.pinned = mask.to(self.write.device) if values else None

    @classmethod
    def build(
        cls,
        lost_charset: Charset,
        known_charset: Charset,
        generator: torch.Generator,
        init_scale: float,
        copy_bias: float,
        gaps: bool = False,
    ) -> EditChannel:
        """An untrained edit channel for two charsets (see `channels.protocol.Channel.build`); `gaps`
        does not apply (its drops already read a digraph letter by letter)."""
        return cls(lost_charset, known_charset, generator, init_scale, copy_bias)

    @property
    def sizes(self) -> tuple[int, int]:
        """(lost symbols, known letters) of the charsets it was built for."""
        return self.write.shape[1], self.none

    def log_operations(self) -> torch.Tensor:
        """log P(operation | next known letter): (K+1, 3); the end row is over insert and stop only."""
        letters = torch.log_softmax(self.operation[: self.none], -1)
        end = torch.log_softmax(self.operation[self.none, :2], -1)
        end = torch.cat([end, torch.full((1,), NEG, device=end.device)])
        return torch.cat([letters, end[None]], 0)

    def log_emissions(self) -> tuple[torch.Tensor, torch.Tensor]:
        """log P(write, symbol | letter) and log P(insert, symbol | next letter): (K+1, S) each."""
        operation = self.log_operations()
        write_logits, insert_logits = self.emission_logits()
        write = torch.log_softmax(write_logits, -1) + operation[:, WRITE, None]
        insert = torch.log_softmax(insert_logits, -1) + operation[:, INSERT, None]
        return write, insert

    def emission_logits(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The write and insert logits (K+1, S) each, with the specials and known sign values masked."""
        write: torch.Tensor = self.write
        insert: torch.Tensor = self.insert
        if self.pinned is not None:  # the pinned symbols' columns are out of training (`pin_signs`)
            pinned = (self.pinned[0] < 0).any(0)  # (S,): the symbols given values
            write = torch.where(pinned, write.detach(), write) + self.pinned[0]
            insert = torch.where(pinned, insert.detach(), insert) + self.pinned[1]
        return write + self.special, insert + self.special

    def forget_signs(self, symbols: Sequence[int]) -> None:
        """Zero what training taught the lost `symbols` (their write and insert columns): a sign
        pinned on a trained channel then reads as its values say, not as the words had taught it."""
        with torch.no_grad():
            self.write[:, list(symbols)] = 0.0
            self.insert[:, list(symbols)] = 0.0

    def log_prob(
        self, lost: torch.Tensor, lost_len: torch.Tensor, known: torch.Tensor, known_len: torch.Tensor
    ) -> torch.Tensor:
        """log P(x_i | y_j) for every pair: lost (n_x, N) ids, known (n_y, M) ids padded with
        `self.none`; lengths without padding. Returns (n_x, n_y)."""
        n_y = known.shape[0]
        big_n, big_m = int(lost_len.max()), int(known_len.max())
        lost = lost[:, :big_n]
        # The next known letter at each position m = 0..M (the end past a word's last letter).
        nxt = torch.cat([known[:, :big_m], known.new_full((n_y, 1), self.none)], 1)  # (n_y, M+1)
        operation = self.log_operations()  # (K+1, 3)
        write, insert = self.log_emissions()  # (K+1, S) each
        with_grad = torch.is_grad_enabled() and self.write.requires_grad
        if runs_compiled(write):
            # The same lattice compiled, each lost word's cells in cache, from the tables of every
            # letter (edit_scores.py; float32, as runs train: a float64 channel, as tests build,
            # keeps the tensors' lattice); with a gradient, through the forward-backward algorithm.
            args = (write, insert, operation[:, DROP], lost, lost_len, nxt, known_len)
            if with_grad:
                return CompiledLattice.apply(*args) + operation[self.none, STOP]
            return compiled_log_probs(*args) + operation[self.none, STOP].detach()
        # Each known word's letters: what writing, dropping or inserting before letter m costs:
        # (n_y, M, S), (n_y, M) and (n_y, M+1, S).
        write, drop, insert = write[nxt[:, :big_m]], operation[nxt[:, :big_m], DROP], insert[nxt]
        if with_grad:
            cells = _Lattice.apply(write, insert, drop, lost, lost_len, known_len)
        else:
            lattice = _alphas(write, insert, drop, lost)
            cells = scaled_log_probs(lattice.alphas, lattice.log_c, lost_len, known_len)[0]
        return cells + operation[self.none, STOP]  # then stop: (n_x, n_y)

    def log_prob_pairs(
        self, lost: torch.Tensor, lost_len: torch.Tensor, known: torch.Tensor, known_len: torch.Tensor
    ) -> torch.Tensor:
        """log P(x_p | y_p) for aligned pairs only: lost (P, N) and known (P, M) ids as in
        `log_prob`, row p with row p. Returns (P,): `log_prob`'s diagonal, without its other cells."""
        n_p = lost.shape[0]
        big_n, big_m = int(lost_len.max()), int(known_len.max())
        lost = lost[:, :big_n]
        nxt = torch.cat([known[:, :big_m], known.new_full((n_p, 1), self.none)], 1)  # (P, M+1)
        operation = self.log_operations()  # (K+1, 3)
        write, insert = self.log_emissions()  # (K+1, S) each
        if runs_compiled(write):
            # The same lattice compiled (edit_scores.py; float32 on the CPU, as runs train): it reads
            # each pair's operations from the tables of every letter itself, and writes their
            # gradients back there.
            args = (write, insert, operation[:, DROP], self.none, lost, lost_len, known[:, :big_m], known_len)
            grad = torch.is_grad_enabled() and self.write.requires_grad
            cells = CompiledPairs.apply(*args) if grad else compiled_pair_log_probs(*args)
            return cells + operation[self.none, STOP]
        # Each pair's operations at each known letter, read at each symbol of its own lost word:
        # (P, M, N), (P, M+1, N) and (P, M).
        write = write[nxt[:, :big_m, None], lost[:, None, :]]
        insert, drop = insert[nxt[:, :, None], lost[:, None, :]], operation[nxt[:, :big_m], DROP]
        n_symbols = self.sizes[0]
        if torch.is_grad_enabled() and self.write.requires_grad:
            cells = _PairedLattice.apply(write, insert, drop, lost_len, known_len, n_symbols)
        else:
            lattice = _pair_alphas(write, insert, drop, n_symbols)
            cells = scaled_pair_log_probs(lattice.alphas, lattice.log_c, lost_len, known_len)[0]
        return cells + operation[self.none, STOP]  # then stop: (P,)

    @torch.no_grad()
    def best_paths(self, lost: Sequence[Sequence[int]], known: Sequence[Sequence[int]]) -> list[list[Step]]:
        """Each pair's (lost[p], known[p] ids) most probable reading through this lattice
        (`alignment.best_path`): a symbol inserted before the next letter (0, 1), a letter dropped
        (1, 0) or written as a symbol (1, 1), each with its log P(operation) + log P(symbol | ...)."""
        operation = self.log_operations().cpu().tolist()  # (K+1, 3)
        write, insert = (e.cpu().tolist() for e in self.log_emissions())  # (K+1, S) each

        def path(x: Sequence[int], y: Sequence[int]) -> list[Step]:
            def into(m: int, k: int) -> list[Step]:
                steps: list[Step] = []
                if k >= 1:  # inserted after m letters, before the next (or the end)
                    steps.append((0, 1, insert[y[m] if m < len(y) else self.none][x[k - 1]]))
                if m >= 1:
                    steps.append((1, 0, operation[y[m - 1]][DROP]))
                    if k >= 1:
                        steps.append((1, 1, write[y[m - 1]][x[k - 1]]))
                return steps

            return best_path(len(y), len(x), into)

        return [path(x, y) for x, y in zip(lost, known, strict=True)]

    @torch.no_grad()
    def sample(self, known: list[int], generator: torch.Generator, max_symbols: int = 64) -> list[int]:
        """A lost word written from the known word `known` (letter ids): x ~ P(x | y), as lost
        symbol ids. Before each letter (and the end) symbols are inserted until the operation
        drawn is another; a letter is then written or dropped; at the end the word stops.
        `max_symbols` bounds a runaway of insertions (an untrained channel)."""
        operation = self.log_operations().exp().cpu()  # (K+1, 3); drawn with a CPU generator
        write, insert = (torch.softmax(logits, -1).cpu() for logits in self.emission_logits())  # (K+1, S) each
        out: list[int] = []
        for letter in [*known, self.none]:
            op = WRITE
            while len(out) < max_symbols:
                op = int(torch.multinomial(operation[letter], 1, generator=generator))
                if op != INSERT:
                    break
                out.append(int(torch.multinomial(insert[letter], 1, generator=generator)))
            if letter != self.none and op == WRITE:
                out.append(int(torch.multinomial(write[letter], 1, generator=generator)))
        return out

    @torch.no_grad()
    def character_map(
        self, known_words: Sequence[Word], lost_charset: Charset, known_charset: Charset, top: int = 5
    ) -> dict[str, list[tuple[str, float]]]:
        """Lost symbol -> the known letters written as it, best first, with P(letter | symbol): each
        letter weighted by how often the known words hold it, P(write | letter) and P(symbol | letter).
        An inserted symbol (written from no letter) reads as "∅"."""
        k = self.none
        known, known_len = encode_padded(known_words, known_charset, k)
        positions = torch.arange(known.shape[1])[None, :]
        letters = known[positions < known_len[:, None]]
        counts = torch.bincount(letters, minlength=k + 1).double()
        counts[k] = len(known_words)  # every word has one end, before which symbols may be inserted too
        write, insert = (e.double().cpu() for e in self.log_emissions())  # (K+1, S) each
        weight = counts.log()[:, None]
        joint = torch.cat([(weight + write)[:k], torch.logsumexp(weight + insert, 0, keepdim=True)])  # (K+1, S)
        posterior = torch.softmax(joint, 0)  # P(letter or insertion | lost symbol), one column per symbol
        names = [known_charset.symbols[a] for a in range(k)] + ["∅"]
        out: dict[str, list[tuple[str, float]]] = {}
        for s in range(len(SPECIALS), len(lost_charset)):
            values, idx = posterior[:, s].topk(min(top, posterior.shape[0]))
            # Only readings with any probability: a rare symbol would otherwise list pieces of
            # probability 0, the never-written specials among them.
            out[lost_charset.symbols[s]] = [
                (names[int(j)], float(v)) for v, j in zip(values, idx, strict=True) if v > 0
            ]
        return out
