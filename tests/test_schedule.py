"""The M-step schedule switches: steps of round 1 (`first_epochs`) and warm start (`reset_each_round`)."""

from __future__ import annotations

import pytest
import torch

from tui_decipher.engine.corpora.charset import PAD_ID
from tui_decipher.engine.corpora.registry import load_corpus
from tui_decipher.engine.methods import neural_em, run_decipherment
from tui_decipher.engine.methods.neural_em import context, epochs_for_round, rounds
from tui_decipher.engine.neural.model import DecipherModel
from tui_decipher.engine.run.config import preset
from tui_decipher.engine.run.events import EpochEnd, RoundEnd, RunStarted
from tui_decipher.tui.live import LiveRun


def _tiny(**changes):
    return preset("demo").replace(embed_dim=16, hidden_dim=16, n_universal=8, device="cpu", **changes)


def test_epochs_for_round() -> None:
    cfg = _tiny(epochs=4, first_epochs=9)
    assert [epochs_for_round(cfg, r) for r in (1, 2, 3)] == [9, 4, 4]
    assert [epochs_for_round(cfg.replace(first_epochs=0), r) for r in (1, 2)] == [4, 4]


def test_first_round_runs_its_own_number_of_steps() -> None:
    cfg = _tiny(epochs=3, first_epochs=5, rounds=3)
    events: list[object] = []
    run_decipherment(load_corpus(cfg).corpus, cfg, events.append)
    per_round = [sum(1 for e in events if isinstance(e, EpochEnd) and e.round == r) for r in (1, 2, 3)]
    assert per_round == [5, 3, 3]
    started = next(e for e in events if isinstance(e, RunStarted))
    assert started.epochs_of_round(1) == 5 and started.steps_before_round(4) == 11
    assert all(e.epochs == (5 if e.round == 1 else 3) for e in events if isinstance(e, EpochEnd))


def test_live_run_counts_steps_with_a_longer_first_round() -> None:
    cfg = _tiny(epochs=3, first_epochs=5, rounds=3, restarts=2)
    live = LiveRun()
    seen: list[tuple[int, int]] = []

    def on_event(event: object) -> None:
        live.apply(event)
        if isinstance(event, (EpochEnd, RoundEnd)):
            seen.append((live.steps_done, live.steps_total))

    run_decipherment(load_corpus(cfg).corpus, cfg, on_event)
    done = [d for d, _ in seen]
    assert {t for _, t in seen} == {22}  # 2 restarts x (5 + 3 + 3)
    assert done == sorted(done) and done[-1] == 22 and done[0] == 1


@pytest.mark.parametrize("reset", [True, False])
def test_warm_start_continues_from_the_last_rounds_parameters(monkeypatch, single_thread, reset: bool) -> None:
    cfg = _tiny(epochs=2, rounds=3, reset_each_round=reset)
    starts: list[dict[str, torch.Tensor]] = []
    ends: list[dict[str, torch.Tensor]] = []
    real_m_step = rounds.m_step

    def spy(ctx, model, flow, restart, round_, *rest):
        starts.append({k: v.clone() for k, v in model.state_dict().items()})
        out = real_m_step(ctx, model, flow, restart, round_, *rest)
        ends.append({k: v.clone() for k, v in model.state_dict().items()})
        return out

    monkeypatch.setattr(rounds, "m_step", spy)
    run_decipherment(load_corpus(cfg).corpus, cfg)
    assert len(starts) == 3

    def same(a, b):
        return all(torch.equal(a[k], b[k]) for k in a)

    for r in (1, 2):  # round r + 1 starts where round r ended, or from a fresh initialisation
        assert same(starts[r], ends[r - 1]) is (not reset)
    # Round 1 always starts from the seeded initialisation, whichever the mode.
    assert not same(starts[0], ends[0])


def test_warm_start_is_reproducible_and_resumable(tmp_path, single_thread) -> None:
    from tui_decipher.engine.run.checkpoint import load_checkpoint
    from tui_decipher.engine.run.events import RoundEnd

    cfg = _tiny(epochs=3, first_epochs=5, rounds=3, reset_each_round=False)
    corpus = load_corpus(cfg).corpus
    copies = []

    def keep(event):
        if isinstance(event, RoundEnd) and event.round == 1:
            import shutil

            shutil.copy(tmp_path / "ck.pt", tmp_path / "r1.pt")
            copies.append(tmp_path / "r1.pt")

    whole = run_decipherment(corpus, cfg, keep, checkpoint=tmp_path / "ck.pt")
    resumed = run_decipherment(corpus, cfg, resume=load_checkpoint(copies[0]))
    assert [r.loss for r in resumed.rounds] == [r.loss for r in whole.rounds]
    assert [(p.lost, p.known) for p in resumed.proposals] == [(p.lost, p.known) for p in whole.proposals]


@pytest.mark.parametrize("guard", [True, False])
def test_a_stalled_m_step_is_rejected_when_asked(monkeypatch, single_thread, guard: bool) -> None:
    """Round 2's M-step is sabotaged (its model scrambled): the guard keeps round 1's model."""
    cfg = _tiny(epochs=40, rounds=2, keep_better_model=guard)
    real_m_step = rounds.m_step
    weights: dict[int, dict[str, torch.Tensor]] = {}

    def sabotage(ctx, model, flow, restart, round_, *rest):
        out = real_m_step(ctx, model, flow, restart, round_, *rest)
        if round_ == 2:
            with torch.no_grad():
                for p in model.parameters():
                    p.normal_(0.0, 3.0)
        return out

    monkeypatch.setattr(rounds, "m_step", sabotage)
    events: list[object] = []

    def on_event(event: object) -> None:
        events.append(event)
        if isinstance(event, RoundEnd):
            weights[event.round] = {k: v.clone() for k, v in result_model_holder[0].state_dict().items()}

    result_model_holder: list = []
    real_build = context.build_model

    def build(*args, **kwargs):
        model = real_build(*args, **kwargs)
        result_model_holder.append(model)
        return model

    monkeypatch.setattr(context, "build_model", build)
    result = run_decipherment(load_corpus(cfg).corpus, cfg, on_event)
    ends = [e for e in events if isinstance(e, RoundEnd)]
    assert [e.kept_previous for e in ends] == [False, guard]
    assert [r.kept_previous for r in result.rounds] == [False, guard]
    same = all(torch.equal(weights[1][k], weights[2][k]) for k in weights[1])
    assert same is guard
    if guard:  # the kept model is the round-1 model, so its accuracy holds
        assert result.rounds[1].accuracy_model >= result.rounds[0].accuracy_model - 0.05


def test_lost_batch_take_cuts_padding_to_the_batch() -> None:
    from tui_decipher.engine.corpora.charset import Charset
    from tui_decipher.engine.neural.scoring import LostBatch

    words = [("a",), ("b", "c", "d"), ("c", "a")]
    lost = LostBatch.encode(words, Charset.from_words(words), torch.device("cpu"))
    part = lost.take(torch.tensor([2, 0]))
    assert part.lengths.tolist() == [3, 2]  # incl. end-of-word
    assert part.ids.shape == (2, 3)  # the 4-wide padding of "bcd" is gone
    assert torch.equal(part.ids, lost.ids[[2, 0], :3])


def test_lost_batch_decodes_batches_after_round_one(monkeypatch, single_thread) -> None:
    """Round 1 decodes every lost word; later steps decode `lost_batch` of them, one shuffled
    pass of batches seeing each lost word once."""
    cfg = _tiny(epochs=6, first_epochs=2, rounds=2, lost_batch=70)
    corpus = load_corpus(cfg).corpus
    n_lost = len(corpus.lost_words)
    seen: list[torch.Tensor] = []
    real_forward = DecipherModel.forward

    def spy(self, lost_ids, lost_lengths, steps):
        if self.training:
            seen.append(lost_ids.clone())
        return real_forward(self, lost_ids, lost_lengths, steps)

    monkeypatch.setattr(DecipherModel, "forward", spy)
    run_decipherment(corpus, cfg)
    assert [len(ids) for ids in seen] == [n_lost] * 2 + [70] * 6
    per_pass = n_lost // 70
    # Each word's ids without padding: batches pad to their own widths.
    rows = [tuple(i for i in r.tolist() if i != PAD_ID) for ids in seen[2 : 2 + per_pass] for r in ids]
    assert len(set(rows)) == len(rows) == per_pass * 70  # no lost word twice in a pass
    assert [neural_em.lost_batch_for_round(cfg, r, n_lost) for r in (1, 2)] == [n_lost, 70]
    assert neural_em.lost_batch_for_round(cfg.replace(lost_batch=0), 2, n_lost) == n_lost


def test_lost_batch_is_reproducible_and_differs_from_the_full_batch(single_thread) -> None:
    corpus = load_corpus(_tiny()).corpus
    batched = _tiny(epochs=8, rounds=2, lost_batch=50)
    a = run_decipherment(corpus, batched)
    b = run_decipherment(corpus, batched)
    assert [r.loss for r in a.rounds] == [r.loss for r in b.rounds]
    full = run_decipherment(corpus, batched.replace(lost_batch=0))
    assert [r.loss for r in full.rounds] != [r.loss for r in a.rounds]
    # A batch as large as the vocabulary is the full pass, step for step.
    whole = run_decipherment(corpus, batched.replace(lost_batch=len(corpus.lost_words)))
    assert [r.loss for r in whole.rounds] == [r.loss for r in full.rounds]
