"""A reviewer's judgment of a proposed pair, as the store, the exports and the constraints name it
(review.py turns judgments into constraints on the flow). No tensors here: the store and the CLI
read these words without importing torch."""

from __future__ import annotations

REFINE_ROUNDS = 3  # EM rounds one refinement adds (the default of `decipher run --refine-rounds`)
ACCEPTED = "accepted"
REJECTED = "rejected"
UNSURE = "unsure"  # recorded, never a constraint
