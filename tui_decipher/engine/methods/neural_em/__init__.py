"""The paper's method: neural EM (Luo et al. 2019, Algorithm 1), M-step training on the flow and
an E-step min-cost flow, with restarts, checkpoints and reviewer-guided refinement.

`NeuralEM` is the method's face (engine/methods/base.py); the rest is the loop. It reports
progress through the problem's `on_event`, checks its `cancel` between epochs, and returns a
`DecipherResult`. Gold is read only by `Problem.evaluate`, never by training.

The loop, by stage:

- context.py: the run's state (`EMContext`, `prepare`) and one restart's.
- init_flow.py: f^(0), the flow the first M-step trains on.
- training.py: the M-step (`m_step`), on every lost word or on batches of them.
- e_step.py: the E-step's demand D and pair costs, and the objective that chooses restarts.
- rounds.py: a restart's rounds (`run_restart`).
- checkpoints.py: a restart's state saved after every round and read back.
- readout.py: the proposals and the character map of the kept restart.
- fitted.py: the kept model, which scores other word lists (`NeuralFitted`).
- fit.py: a run (its restarts, or the rest of a resumed run); refine.py: a refinement.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from ...constraints.review import ReviewConstraints
from ...constraints.sign_values import SignValues
from ...corpora.corpus import Corpus
from ...run.checkpoint import Checkpoint, CheckpointError
from ...run.config import DecipherConfig
from ...run.events import EventCallback
from ...run.method_summaries import SUMMARIES
from ..base import DecipherResult
from .checkpoints import write_checkpoint
from .context import METHOD_NAME, EMContext, prepare
from .e_step import demand_for_round, eed_cost, flow_costs, objective
from .fit import _fit
from .fitted import NeuralFitted
from .init_flow import initial_flow
from .readout import character_map, proposals
from .refine import _refine, kept_snapshot
from .rounds import run_restart
from .training import epochs_for_round, lost_batch_for_round

# m_step and build_model are not re-exported: they are looked up where they are called
# (rounds.m_step, context.build_model), so a patch of this package's name would change nothing;
# without the name here, such a patch fails instead.
__all__ = [
    "EMContext",
    "NeuralEM",
    "NeuralFitted",
    "character_map",
    "demand_for_round",
    "eed_cost",
    "epochs_for_round",
    "flow_costs",
    "initial_flow",
    "lost_batch_for_round",
    "objective",
    "prepare",
    "proposals",
    "run_restart",
    "write_checkpoint",
]


class NeuralEM:
    """The paper's neural EM (engine/methods/base.py's Method)."""

    name = METHOD_NAME
    summary = SUMMARIES[METHOD_NAME]
    keeps_rounds = True
    decides_demand = False
    refines_with_signs = False

    def check_known_signs(self, signs: SignValues, cfg: DecipherConfig) -> None:
        signs.check_channel(cfg.channel_kind)  # the channel of its first flow (init_flow = channel)

    def quick_changes(self, cfg: DecipherConfig, channel_steps: int) -> dict[str, Any]:
        return {"channel_steps": min(cfg.channel_steps, channel_steps)} if cfg.init_flow == "channel" else {}

    def fit(
        self,
        corpus: Corpus,
        cfg: DecipherConfig,
        on_event: EventCallback,
        cancel: threading.Event,
        checkpoint_path: Path | None = None,
        start: Checkpoint | None = None,
        review: ReviewConstraints | None = None,
    ) -> DecipherResult:
        return _fit(corpus, cfg, on_event, cancel, checkpoint_path, start, review)

    def refine(
        self,
        corpus: Corpus,
        start: Checkpoint,
        constraints: ReviewConstraints,
        rounds: int,
        on_event: EventCallback,
        cancel: threading.Event,
        checkpoint_path: Path | None = None,
        draw: int = 0,
        signs: SignValues | None = None,
    ) -> DecipherResult:
        if signs:  # its M-step trains a seq2seq model, which no sign value can hold
            raise ValueError(
                "pinned sign values hold a character channel: refine an auto or channel run with them "
                "(a neural run takes known signs only from its start, with init_flow = channel)"
            )
        return _refine(corpus, start, constraints, rounds, on_event, cancel, checkpoint_path, draw)

    def check(self, corpus: Corpus, cfg: DecipherConfig) -> None:
        """Any corpus the readers accept can run (`Method.check`)."""

    def check_resume(self, start: Checkpoint) -> None:
        """Its checkpoint is saved after every round: any continues (`Method.check_resume`)."""
        for key in ("flow", "sample_gen", "current", "best", "restart_objectives"):
            if key not in start.state:
                raise CheckpointError(f"the checkpoint holds no neural EM state ({key!r} missing)")

    def check_refine(self, start: Checkpoint) -> None:
        """A refinement continues the kept restart: it needs one complete round (`Method.check_refine`)."""
        self.check_resume(start)
        kept_snapshot(start.state)

    def describe(self, config: dict[str, Any]) -> str:
        return (
            f"{config.get('rounds')} rounds x {config.get('epochs')} steps"
            + (f" (round 1: {config['first_epochs']})" if config.get("first_epochs") else "")
            + f", d={config.get('embed_dim')}, C={config.get('capacity')}, gamma={config.get('flow_decay')}"
        )

    def char_map_source(self, config: dict[str, Any]) -> str:
        return "the attention of the final model"
