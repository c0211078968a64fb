"""The fit against the probe it started from, on the probe's held-out words (`FitCheck`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from ...corpora.corpus import Word
from .demand import (
    paired_z,
    word_wins,
)  # fmt: skip

# The fit is kept unless the probe leads it on its held-out words by this many standard errors of
# a paired test (decoy wins, or shared spellings read as themselves): the fit trained on those
# words, so it is expected to do at least as well, and chance alone rarely puts the probe 2 ahead.
DRIFT_Z = 2.0


def identity_reads(real_log_p: torch.Tensor, lost: list[Word], known_words: Sequence[Word]) -> torch.Tensor:
    """Of the lost words spelled exactly as some known word, whether the channel reads each as a
    known word of that spelling (1) or as another (0): (n_identical,), in `lost`'s order. From
    log P(x | y) of `lost` against every known word (n, n_known); empty where no spelling is shared."""
    spelled = set(known_words)
    rows = [i for i, word in enumerate(lost) if word in spelled]
    if not rows:
        return torch.zeros(0, dtype=torch.float64)
    best = real_log_p[rows].argmax(1).tolist()  # (n_identical,)
    return torch.tensor([float(known_words[j] == lost[i]) for i, j in zip(rows, best, strict=True)],
                        dtype=torch.float64)  # fmt: skip


@dataclass(frozen=True)
class FitCheck:
    """The fit against the probe it started from, on the probe's held-out words, by two paired
    tests. The fit trained on those words, so it should do at least as well on both.

    - Decoys: how often each channel's best real known word beats its best decoy. A channel that
      lost the map loses these.
    - Shared spellings: of the held-out words spelled exactly as a known word, how many each
      channel reads as that word (`identity_reads`). A channel that drifted to longer spellings
      ("aby" read as "abyh") still beats the decoys with them, but loses these. On the full
      Ugaritic list that share fell with the fit's drift where the decoy wins did not
      (docs/experiments.md). Where no spelling is shared (two scripts) this test is silent."""

    n_held: int
    probe_wins: float
    fit_wins: float
    z: float  # the probe's lead in paired standard errors (`demand.paired_z`)
    n_identical: int = 0  # held-out words spelled as a known word
    probe_identical: float = 0.0  # of them, those the probe reads as that word
    fit_identical: float = 0.0  # and the fit
    identity_z: float = 0.0  # the probe's lead there, in paired standard errors
    stopped_after: int = 0  # the fit's steps when a check during its training found it drifted (0: none did)

    @classmethod
    def of(
        cls, probe_wins: torch.Tensor, fit_wins: torch.Tensor, probe_reads: torch.Tensor | None = None,
        fit_reads: torch.Tensor | None = None,
    ) -> FitCheck:  # fmt: skip
        """From the two channels' `word_wins` on the same held-out words (n,), and their
        `identity_reads` on the same words (n_identical,) where given."""
        wins = (len(probe_wins), float(probe_wins.sum()), float(fit_wins.sum()), paired_z(probe_wins, fit_wins))
        if probe_reads is not None and fit_reads is not None and len(probe_reads):
            return cls(*wins, n_identical=len(probe_reads), probe_identical=float(probe_reads.sum()),
                       fit_identical=float(fit_reads.sum()), identity_z=paired_z(probe_reads, fit_reads))  # fmt: skip
        return cls(*wins)

    @property
    def kept_fit(self) -> bool:
        """Whether the fit is kept: unless the probe leads it by DRIFT_Z paired errors or more in either test."""
        return self.z < DRIFT_Z and self.identity_z < DRIFT_Z

    @property
    def why(self) -> str:
        kept = "the fit kept" if self.kept_fit else "the probe's channel kept (the fit drifted)"
        if self.stopped_after:
            kept = f"the probe's channel kept (the fit drifted by its step {self.stopped_after}, where it stopped)"
        decoys = (f"held-out words beat decoys {100 * self.fit_wins / self.n_held:.0f}% after the fit, "
                  f"{100 * self.probe_wins / self.n_held:.0f}% after the probe (z = {self.z:.1f})")  # fmt: skip
        if self.identity_z < DRIFT_Z or self.z >= DRIFT_Z:
            return f"{kept}: {decoys}"
        fit, probe = (100 * x / self.n_identical for x in (self.fit_identical, self.probe_identical))
        return (f"{kept}: of {self.n_identical} held-out words spelled as a known word the fit reads {fit:.0f}% "
                f"as that word, the probe {probe:.0f}% (z = {self.identity_z:.1f}); {decoys}")  # fmt: skip

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "z": round(self.z, 2), "identity_z": round(self.identity_z, 2),
                "kept_fit": self.kept_fit, "why": self.why}  # fmt: skip


def _fit_check_evidence(
    real: torch.Tensor, fake: torch.Tensor, held_words: list[Word], known_words: Sequence[Word]
) -> tuple[torch.Tensor, torch.Tensor]:
    """One channel's evidence for `FitCheck` from its `_against` scores of the held-out words: its
    `word_wins` (n_held,) and its `identity_reads` (n_identical,). The probe's and the fit's are
    both taken here, so that the paired tests compare like with like."""
    return word_wins(real, fake), identity_reads(real, held_words, known_words)
