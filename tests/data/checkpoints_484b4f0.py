"""How the *_484b4f0 checkpoints beside this file were written, by main at 484b4f0 (the code before
checkpoints became data), and what that code reached from them (checkpoints_484b4f0.json).

Run with that commit checked out: `python tests/data/checkpoints_484b4f0.py OUT tests/data/v1_run.cog`.
A generated 60-word syllabary, auto at seed 2 with 300 steps on one thread: its finished
checkpoint; a partial one stopped after its first probe, mid-way through the second (its pickled
stages and a channel's training state), resumed to the uninterrupted run's proposals; the finished
one refined once under two judgments; a partial one of a run with known pairs (which that code
could not resume: it read its known pairs back as a dict), beside the uninterrupted run's
proposals; and the neural EM stopped after the first of two rounds, resumed.
"""

import json
import sys
import threading
from pathlib import Path

import torch

from tui_decipher.engine.channels import trainer
from tui_decipher.engine.constraints.review import ReviewConstraints
from tui_decipher.engine.corpora.corpus import read_cog
from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
from tui_decipher.engine.methods import refine_decipherment, run_decipherment
from tui_decipher.engine.methods.stages import _unpacked  # type: ignore[attr-defined]  # 484b4f0's
from tui_decipher.engine.run.checkpoint import load_checkpoint
from tui_decipher.engine.run.config import DecipherConfig
from tui_decipher.engine.run.events import ChannelStep, RoundEnd

AUTO = {"method": "auto", "device": "cpu", "seed": 2, "auto_steps": 300, "threads": 1}
NEURAL = {"method": "neural", "device": "cpu", "seed": 3, "rounds": 2, "epochs": 5, "embed_dim": 16,
          "hidden_dim": 16, "n_universal": 8, "threads": 1}  # fmt: skip


def rows(proposals):
    return [[p.lost, p.known, p.score, p.cost] for p in proposals]


def partial(out, corpus, cfg, name, review):
    """auto stopped once its first probe is saved and its second has saved training state."""
    path, cancel = out / f"{name}.pt", threading.Event()

    def stop(event):
        if isinstance(event, ChannelStep) and path.exists():
            state = load_checkpoint(path).state
            if state.get("partial") and "probe 1" in state["stage_names"] and _unpacked(state["training"]):
                cancel.set()

    assert run_decipherment(corpus, cfg, stop, cancel, checkpoint=path, review=review).status == "cancelled"
    return path


def main(out: Path, neural_cog: Path) -> None:
    torch.set_num_threads(1)
    trainer.SAVE_SECONDS = 0.0  # the training state saved at every step where the plan is drawn afresh
    out.mkdir(exist_ok=True)
    corpus = read_cog(write_generated(out / "c.cog", GeneratorSpec("syllabary", seed=9, lost_words=60)).path)
    cfg = DecipherConfig(**AUTO)
    whole = run_decipherment(corpus, cfg, checkpoint=out / "finished_auto_484b4f0.pt")
    path = partial(out, corpus, cfg, "partial_auto_484b4f0", None)
    resumed = run_decipherment(corpus, cfg, checkpoint=out / "resumed.pt", resume=load_checkpoint(path))
    assert rows(resumed.proposals) == rows(whole.proposals)
    review = ReviewConstraints(accepted=((2, 3),), rejected=((4, 5),))
    refined = refine_decipherment(corpus, load_checkpoint(out / "finished_auto_484b4f0.pt"), review, 1,
                                  checkpoint=out / "refined.pt")  # fmt: skip
    known = ReviewConstraints(accepted=((0, 0),), rejected=((1, 1),))
    whole_known = run_decipherment(corpus, cfg, review=known)
    partial(out, corpus, cfg, "partial_auto_known_pairs_484b4f0", known)

    neural_corpus, ncfg = read_cog(neural_cog), DecipherConfig(**NEURAL)
    neural_whole = run_decipherment(neural_corpus, ncfg)
    npath, ncancel = out / "neural_484b4f0.pt", threading.Event()
    run_decipherment(neural_corpus, ncfg, lambda e: ncancel.set() if isinstance(e, RoundEnd) else None, ncancel,
                     checkpoint=npath)  # fmt: skip
    assert load_checkpoint(npath).round == 1
    neural = run_decipherment(neural_corpus, ncfg, checkpoint=out / "nres.pt", resume=load_checkpoint(npath))
    assert rows(neural.proposals) == rows(neural_whole.proposals)

    (out / "checkpoints_484b4f0.json").write_text(json.dumps({
        "corpus": {"kind": "syllabary", "seed": 9, "lost_words": 60}, "config": AUTO,
        "resumed": rows(resumed.proposals),
        "refine_review": {"accepted": [[2, 3]], "rejected": [[4, 5]]}, "refined": rows(refined.proposals),
        "known_pairs": {"accepted": [[0, 0]], "rejected": [[1, 1]]}, "known_pairs_whole": rows(whole_known.proposals),
        "neural_config": NEURAL, "neural_resumed": rows(neural.proposals),
    }))  # fmt: skip
    for scratch in ("resumed.pt", "refined.pt", "nres.pt", "c.cog"):
        (out / scratch).unlink()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
