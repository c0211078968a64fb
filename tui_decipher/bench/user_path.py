"""The user's path: `decipher run` exactly as the README shows it, one job per dataset and seed.

The other settings run the engine inside the bench's job process, with the bench's `--threads`;
a user runs the command with its default threads, where auto's syllable search starts worker
processes. These rows run the command itself in a child process (no `--threads`: the user's
default) and read its summary.json: the paper's protocol beside the proposals at auto's own D
(precision, recall, F1, calibration). Run them alone (`--jobs 1`): two side by side would each
take every core, as two users' runs on one machine would.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from .core import BenchSetting, JobReporter, RowResult, RowSpec, RunFn
from .experiments.experiment import QUICK_CHANNEL_STEPS
from .fuzz_cases import BENCH_CASES, REFUSED, fuzz_case

# Setting name -> (registry corpus, the command's other options, what it reads).
USER_DATASETS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "linear-b-user": ("linear-b", (), "Linear B"),
    "linear-b-names-user": ("linear-b-names", (), "Linear B names"),
    "ugaritic-small-user": ("ugaritic-small", (), "Ugaritic, the small file"),
    "ugaritic-noiseless-user": ("ugaritic-noiseless", (), "Ugaritic, noiseless"),
    "ugaritic-full-user": ("ugaritic-full", (), "Ugaritic, the full list"),
    "romance-es-it-user": ("romance", ("--lost", "es", "--known", "it"), "Romance es -> it"),
}
USER_ROW = "user"


def user_command(corpus: str, options: tuple[str, ...], seed: int, quick: bool, folder: Path) -> list[str]:
    """`decipher run` as a user types it (the module, so the bench's interpreter runs it)."""
    cmd = [sys.executable, "-m", "tui_decipher.cli", "run", "--corpus", corpus, *options, "--seed", str(seed),
           "--out", str(folder / "run"), "--data-dir", str(folder / "data"), "--quiet"]  # fmt: skip
    return cmd + (["--set", f"auto_steps={QUICK_CHANNEL_STEPS}"] if quick else [])


def _user_row(key: str, cmd: list[str], folder: Path, reporter: JobReporter) -> RowResult:
    """`cmd` (a `decipher run` writing into `folder`/run) in a child process; its summary.json as the row."""
    reporter.stage("decipher " + " ".join(cmd[4:]))
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise RuntimeError(f"`decipher run` exited {done.returncode}: {last}")
    summary = json.loads((folder / "run" / "summary.json").read_text(encoding="utf-8"))
    return RowResult(
        key, summary["accuracy"], summary["accuracy_model"], summary["n_evaluated"], summary["seconds"],
        summary["phase_seconds"],
        extra={"proposal_scores": summary["proposal_scores"], "decisions": summary["decisions"],
               "threads": summary["threads"], "n_proposals": summary["n_proposals"],
               "past_d": past_d_figures(folder / "run" / "beyond_d.tsv")},
    )  # fmt: skip


def past_d_figures(path: Path, first: int = 50) -> dict[str, int]:
    """What a run's pairs past D (`beyond_d.tsv`, best first) hold, gold read after the run: how
    many there are, how many are gold pairs, and how many of the `first` ones (where a reader of
    the list would look first). All 0 where the run wrote none; the gold counts 0 where its corpus
    has no gold."""
    rows = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    header = rows[0].split("\t") if rows else []
    if "gold" not in header:
        return {"pairs": max(0, len(rows) - 1), "gold": 0, "gold_first": 0, "first": first}
    gold = [line.split("\t")[header.index("gold")] == "1" for line in rows[1:]]
    return {"pairs": len(gold), "gold": sum(gold), "gold_first": sum(gold[:first]), "first": first}


def user_run(corpus: str, options: tuple[str, ...]) -> RunFn:
    """The setting's `run`: the command on a registry corpus, in a child process."""

    def run(seed: int, quick: bool, reporter: JobReporter, part: str | None = None) -> list[RowResult]:
        with tempfile.TemporaryDirectory(prefix="decipher-user-") as tmp:
            return [_user_row(USER_ROW, user_command(corpus, options, seed, quick, Path(tmp)), Path(tmp), reporter)]

    return run


def _fuzz_run(seed: int, quick: bool, reporter: JobReporter, part: str | None = None) -> list[RowResult]:
    """One fuzz case (the part) as a user runs it: finished, or refused in one line (a row of none)."""
    assert part is not None
    with tempfile.TemporaryDirectory(prefix="decipher-fuzz-") as tmp:
        path = fuzz_case(Path(tmp), part)
        cmd = user_command(str(path), (), seed, quick, Path(tmp))
        if part in REFUSED:
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
            if done.returncode != 2 or len(errors) != 1:
                raise RuntimeError(f"{part}: expected a one-line refusal, got exit {done.returncode}")
            return [RowResult(part, None, extra={"refused": errors[0]})]
        return [_user_row(part, cmd, Path(tmp), reporter)]


FUZZ_SETTING = BenchSetting(
    "fuzz-user", "auto on generated word lists of every kind and size, as `decipher run` runs them (default threads)",
    tuple(RowSpec(case, f"fuzz case {case}") for case in BENCH_CASES), _fuzz_run, group="user", extra=True,
    parts=BENCH_CASES, note="bench/fuzz_cases.py makes each case; run with --jobs 1",
)  # fmt: skip


USER_SETTINGS = (
    *(
        BenchSetting(
            name,
            f"{what}: `decipher run --corpus {corpus}{''.join(' ' + o for o in options)} --seed S` as a user "
            "runs it (default threads)",
            (RowSpec(USER_ROW, f"{what}, `decipher run` with default threads"),),
            user_run(corpus, options),
            (corpus,),
            group="user",
            extra=True,
            note="the command in a child process; run with --jobs 1 (each run takes every core)",
        )
        for name, (corpus, options, what) in USER_DATASETS.items()
    ),
    FUZZ_SETTING,
)
