"""A fixed stored run (no training) for the TUI tests and snapshots."""

from __future__ import annotations

import random
from pathlib import Path

from tui_decipher.engine.channels.alignment import Segment
from tui_decipher.engine.corpora.corpus import Corpus, read_cog
from tui_decipher.engine.methods import DecipherResult, Proposal, RoundMetrics
from tui_decipher.engine.run.config import DecipherConfig
from tui_decipher.engine.run.events import EpochEnd, RoundEnd, RunStarted
from tui_decipher.store import RunRecorder, Store, default_path

COG = """ves\tkal
λιγβυ\tsande
λυγρο\tsento
σιγβο\tlando
γιθυ\tnake
σιπρο\tlarto
ριλιγ\ttasan
γιψι\tnafa
σιπβιτ\tlardam
_\tkesi
_\tmendus
"""
FIXED_TIME = 1_790_000_000.0  # 2026-09-21 14:13 UTC


def fixed_corpus(tmp: Path) -> Corpus:
    path = tmp / "fixed.cog"
    path.write_text(COG, encoding="utf-8")
    return read_cog(path, name="fixed")


def _diagonal(n_known: int, n_lost: int) -> list[list[float]]:
    return [[0.9 if i == j else round(0.1 / max(1, n_lost - 1), 4) for j in range(n_lost)] for i in range(n_known)]


def fixed_result(corpus: Corpus, beyond: int = 0) -> DecipherResult:
    """Proposals pairing lost i with known (i + shift) so some are right and some wrong, fixed scores;
    the last `beyond` of them are pairs past D instead (`DecipherResult.beyond`), as where a run's D
    is a range."""
    cfg = DecipherConfig(corpus="fixed", method="neural", rounds=2, epochs=3, embed_dim=16, hidden_dim=16)
    n = len(corpus.lost_words)
    proposals = []
    for i in range(n):
        j = i if i % 3 else (i + 1) % len(corpus.known_words)  # every third one is wrong
        lost, known = corpus.lost_words[i], corpus.known_words[j]
        alternatives = [(j, 0.9 - 0.01 * i), ((j + 1) % len(corpus.known_words), 0.2)]
        proposals.append(
            Proposal(i, j, round(0.95 - 0.05 * i, 3), 0.5 + i, j in corpus.gold.get(i, ()), alternatives,
                     _diagonal(len(known) + 1, len(lost) + 1))
        )  # fmt: skip
    rounds = [
        RoundMetrics(1, 6, "nll", 9.5, 9.0, 0.5, 40.0, 6, 0.5, 0.375, 1.0, {}),
        RoundMetrics(2, 8, "eed", 4.25, 4.0, 0.25, 12.0, 8, 0.75, 0.625, 1.0, {}),
    ]
    char_map = {"γ": [("n", 0.9), ("s", 0.05)], "λ": [("s", 0.8), ("l", 0.1)], "σ": [("l", 0.7), ("s", 0.2)]}
    cut = len(proposals) - beyond
    return DecipherResult(
        config=cfg, corpus_name="fixed", lost_code="ves", known_code="kal", demand=8, status="finished",
        device="cpu", proposals=proposals[:cut], beyond=proposals[cut:], char_map=char_map, rounds=rounds,
        accuracy=0.75, accuracy_model=0.625, n_evaluated=8, seconds=12.5,
    )  # fmt: skip


def seed_store(data_dir: Path, tmp: Path, beyond: int = 0) -> int:
    """Record the fixed run as `decipher run` would (events, then result); returns its id. `beyond`:
    its last pairs recorded as pairs past D (`fixed_result`)."""
    corpus = fixed_corpus(tmp)
    result = fixed_result(corpus, beyond)
    db = default_path(data_dir)
    with Store(db) as store:
        run_id = store.create_run(corpus, "fixed.cog", "demo", result.config.to_dict(), 2)
        store.conn.execute("UPDATE runs SET created_at = ? WHERE id = ?", (FIXED_TIME, run_id))
    recorder = RunRecorder(db, run_id)
    recorder(RunStarted("fixed", "ves", "kal", corpus.stats(), "cpu", 2, 3, 1, 8))
    for r in result.rounds:
        for epoch in range(1, 4):
            recorder(EpochEnd(0, r.round, epoch, 3, r.loss + 3 - epoch, r.nll + 3 - epoch, r.reg, float(epoch)))
        recorder(RoundEnd(0, r.round, 2, r.demand, r.cost_kind, r.loss, r.flow_cost, r.flow, r.accuracy,
                          r.accuracy_model, r.seconds))  # fmt: skip
    recorder.finish(result, corpus)
    recorder.close()
    return run_id


def seed_large_store(data_dir: Path, tmp: Path, n: int, seed: int = 7) -> int:
    """A stored finished run of `n` proposals as large lists have them (the full Ugaritic list has
    7235): lost word i proposed with known word i, each read letter by letter, no training.
    Returns its id."""
    rng = random.Random(seed)
    letters = "abdgklmnprst"
    words: dict[str, None] = {}  # distinct words, in the order drawn
    while len(words) < n:
        words["".join(rng.choice(letters) for _ in range(rng.randint(3, 6)))] = None
    path = tmp / "large.cog"
    path.write_text("uga\theb\n" + "".join(f"{w}\t{w}\n" for w in words), encoding="utf-8")
    corpus = read_cog(path, name="large")
    proposals = [
        Proposal(i, i, round(0.99 - 0.9 * i / n, 4), 0.1 + i / n, True, [(i, 0.9)], [],
                 [Segment((c,), (c,), 0.9) for c in corpus.lost_words[i]])
        for i in range(n)
    ]  # fmt: skip
    cfg = DecipherConfig(corpus="large", method="channel", channel_kind="edit")
    char_map = {c: [(c, 0.9), (letters[(letters.index(c) + 1) % len(letters)], 0.05)] for c in letters}
    result = DecipherResult(
        config=cfg, corpus_name="large", lost_code="uga", known_code="heb", demand=n, status="finished",
        device="cpu", proposals=proposals, char_map=char_map, accuracy=1.0, n_evaluated=n, seconds=1.0,
    )  # fmt: skip
    with Store(default_path(data_dir)) as store:
        run_id = store.create_run(corpus, "large.cog", "", cfg.to_dict(), 1)
    recorder = RunRecorder(default_path(data_dir), run_id)
    recorder.finish(result, corpus)
    recorder.close()
    return run_id


# A syllabary's key for the fixed run: each sign's one reading, its probability rising by 0.05 a sign.
SYLLABLE_READINGS = {"γ": "na", "λ": "sa", "σ": "la", "ι": "de", "υ": "ko", "ρ": "to", "β": "a", "ο": "n"}


def store_readings(data_dir: Path, run_id: int, readings: dict[str, str]) -> None:
    """Replace run `run_id`'s key (char_map) with one reading a sign (`readings`), each at 0.5 + 0.05 n."""
    with Store(default_path(data_dir)) as store:
        store.conn.execute("DELETE FROM char_map WHERE run_id = ?", (run_id,))
        store.conn.executemany("INSERT INTO char_map VALUES (?, ?, 1, ?, ?)",
                               [(run_id, sign, reading, 0.5 + 0.05 * n)
                                for n, (sign, reading) in enumerate(readings.items())])  # fmt: skip
