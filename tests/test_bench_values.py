"""The bench's scholar values setting (bench/experiments/values.py): generated syllabaries run
without and with ten of their key's values."""

from __future__ import annotations

import tempfile

from tui_decipher.bench.core import JobReporter, RowResult
from tui_decipher.bench.experiments.values import (
    KNOWN_VALUES,
    VALUES_CORPORA,
    VALUES_PARTS,
    values_path,
    write_with_values,
)
from tui_decipher.bench.settings import SETTINGS
from tui_decipher.engine.constraints.sign_values import read_sign_values
from tui_decipher.engine.corpora.generators import GeneratorSpec, generate, syllabary_key_text
from tui_decipher.engine.corpora.registry import load_corpus
from tui_decipher.engine.run.config import DecipherConfig


def test_each_syllabary_runs_without_and_with_ten_values_of_its_key(tmp_path, monkeypatch, single_thread) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the corpora the bench writes go under tmp_path
    setting = SETTINGS["values-auto"]
    assert setting.extra and setting.corpora == () and setting.parts == VALUES_PARTS
    assert [r.key for r in setting.rows] == ["without", "with"]
    assert {spec["kind"] for spec in VALUES_CORPORA.values()} == {"syllabary", "dead-vowel"}
    assert len(VALUES_PARTS) == 2 * len(VALUES_CORPORA)
    # The same configs each call (a resumed bench keeps its jobs); auto, the values only in "with".
    configs = setting.configs(1234, False)
    assert [c.to_dict() for c in configs] == [c.to_dict() for c in setting.configs(1234, False)]
    assert all(c.method == "auto" and c.seed == 1234 for c in configs)
    for part, cfg in zip(VALUES_PARTS, configs, strict=True):
        key = part.rsplit("-", 1)[0]
        assert cfg.corpus == str(values_path(key)) and str(tmp_path) in cfg.corpus
        assert cfg.known_signs == (str(values_path(key).with_suffix(".signs.tsv")) if part.endswith("-with") else "")
    # The corpus is the generator's; the values are its key's first ten lines, most frequent sign first.
    corpus_path, signs_path = write_with_values("syllabary-301")
    made = generate(GeneratorSpec(**VALUES_CORPORA["syllabary-301"]))
    assert corpus_path.read_text(encoding="utf-8") == made.cog_text()
    key_lines = syllabary_key_text(made).splitlines()
    assert signs_path.read_text(encoding="utf-8").splitlines() == key_lines[: 1 + KNOWN_VALUES]
    corpus = load_corpus(DecipherConfig(corpus=str(corpus_path))).corpus
    assert len(read_sign_values(str(signs_path), corpus).values) == KNOWN_VALUES
    # A job runs its part with the values given (the reduced schedule: this checks the wiring only).
    (row,) = setting.run(1234, True, JobReporter(), part="syllabary-301-with")
    assert row.key == "syllabary-301-with" and row.extra["config"]["known_signs"] == str(signs_path)
    assert row.n_evaluated == made.n_cognates and row.extra["proposal_scores"]["n_gold"] == made.n_cognates


def _row(part: str, accuracy: float, f1: float) -> RowResult:
    scores = {"precision": f1, "recall": f1, "f1": f1, "n_proposals": 100, "n_gold": 120, "calibration_error": 0.1}
    return RowResult(part, accuracy, None, 120, 2.0, {"train": 1.0}, {"proposal_scores": scores})


def test_the_rows_average_each_mode_and_wait_for_every_part() -> None:
    combine = SETTINGS["values-auto"].combine
    assert combine is not None
    rows = [_row(part, 0.9 if part.endswith("-with") else 0.1, 0.8 if part.endswith("-with") else 0.0)
            for part in VALUES_PARTS]  # fmt: skip
    assert combine(rows[:-1]) == []  # a part still to run: no average yet
    without, with_values = combine(rows)
    n = len(VALUES_CORPORA)
    assert (without.key, with_values.key) == ("without", "with")
    assert abs(without.accuracy - 0.1) < 1e-9 and abs(with_values.accuracy - 0.9) < 1e-9
    assert with_values.n_evaluated == 120 * n and with_values.seconds == 2.0 * n
    scores = with_values.extra["proposal_scores"]
    assert abs(scores["f1"] - 0.8) < 1e-9 and scores["n_proposals"] == 100 * n and scores["n_gold"] == 120 * n
    assert without.extra["proposal_scores"]["f1"] == 0.0
