"""Faults and load: processes killed at random, a full disk, garbled files. The store opens after
each, holds every decision reported written, and the user reads one line, never a traceback.

The load test runs three processes at once (two `decipher run`s, and a third writing review
decisions and pins in a loop, one committed transaction each, as the TUI's Review and Key screens
do), kills each with SIGKILL at random moments and restarts it, for DECIPHER_FAULT_SECONDS (60).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tui_decipher.cli import app
from tui_decipher.store import Store, default_path

runner = CliRunner()
CORPUS = Path(__file__).parent / "data" / "v1_run.cog"  # 18 lost x 27 known words
SECONDS = float(os.environ.get("DECIPHER_FAULT_SECONDS", "60"))
RUN = [sys.executable, "-m", "tui_decipher.cli", "run", "--corpus", str(CORPUS), "--method", "channel",
       "--set", "channel_steps=400", "--set", "channel_restarts=1", "--quiet"]  # fmt: skip

# The reviewer: decision k (from argv on) on pair k of the 18 x 27, cycling through the statuses,
# a sign pinned every fifth; "begin" before each transaction, "done" once it has committed.
WRITER = """
import sys, time
from tui_decipher.store import Store
db, run_id, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
store = Store(db)
while True:
    pair, status = (k % 18, (k // 18) % 27), ("accepted", "rejected", "unsure", "open")[k % 4]
    print("begin", k, *pair, status, flush=True)
    store.set_judgment(run_id, pair[0], pair[1], status)
    print("done", k, flush=True)
    if k % 5 == 0:
        sign, value = "ξολογιτηαβγ"[k % 11], "ptkmnlr"[k % 7]
        print("begin-pin", k, sign, value, flush=True)
        store.set_pins(run_id, sign, [value])
        print("done-pin", k, flush=True)
    k += 1
    time.sleep(0.005)
"""


def _env(data: Path) -> dict[str, str]:
    return {**os.environ, "DECIPHER_DATA_DIR": str(data), "OMP_NUM_THREADS": "1"}


def _finished_run(data: Path) -> int:
    result = runner.invoke(app, ["run", "--corpus", str(CORPUS), "--method", "channel", "--set", "channel_steps=10",
                                 "--quiet", "--data-dir", str(data)])  # fmt: skip
    assert result.exit_code == 0, result.output
    with Store(default_path(data)) as store:
        return store.runs()[0].id


class _Restarted:
    """One process kept running: killed with SIGKILL at a random moment, then started again."""

    def __init__(self, command, data: Path, rng: random.Random, logs: Path, name: str) -> None:
        self.command, self.data, self.rng, self.logs, self.name = command, data, rng, logs, name
        self.starts = 0
        self.proc: subprocess.Popen | None = None

    def tick(self) -> None:
        if self.proc is not None and self.proc.poll() is None and time.monotonic() < self.deadline:
            return
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self.starts += 1
        out = (self.logs / f"{self.name}.{self.starts}.out").open("w")
        err = (self.logs / f"{self.name}.{self.starts}.err").open("w")
        self.proc = subprocess.Popen(self.command(self.starts), env=_env(self.data), stdout=out, stderr=err, text=True)
        out.close()
        err.close()
        self.deadline = time.monotonic() + self.rng.uniform(0.3, 4.0)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()


def _writes(logs: Path) -> tuple[dict, dict, dict, dict]:
    """From the writer's lines, in order: each pair's and sign's last committed value, and the
    values of writes begun but not seen committed (cut by a kill), which may or may not be there."""
    decided, pinned, maybe_decided, maybe_pinned = {}, {}, {}, {}
    begun: dict[str, tuple] = {}
    for path in sorted(logs.glob("writer.*.out"), key=lambda p: int(p.name.split(".")[1])):
        lines = path.read_text().splitlines()
        for n, line in enumerate(lines):
            word, _k, *rest = [*line.split(), "", ""][:2] + line.split()[2:]
            whole = {"begin": 3, "begin-pin": 2}.get(word, 0) == len(rest)
            if not whole:  # a line the kill cut short, its print unfinished: its write not begun
                assert n == len(lines) - 1, (path, line)
                continue
            if word == "begin":
                begun["d"] = ((int(rest[0]), int(rest[1])), rest[2])
            elif word == "done":
                pair, status = begun.pop("d")
                decided[pair] = status
                maybe_decided.pop(pair, None)
            elif word == "begin-pin":
                begun["p"] = (rest[0], rest[1])
            elif word == "done-pin":
                sign, value = begun.pop("p")
                pinned[sign] = value
                maybe_pinned.pop(sign, None)
        for kind, item in begun.items():  # killed inside this write
            (maybe_decided if kind == "d" else maybe_pinned)[item[0]] = item[1]
        begun.clear()
    return decided, pinned, maybe_decided, maybe_pinned


def _next_k(logs: Path) -> int:
    words = [line.split() for p in logs.glob("writer.*.out") for line in p.read_text().splitlines()]
    ks = [int(w[1]) for w in words if len(w) > 1 and w[1].isdigit()]  # not a line a kill cut short
    return max(ks, default=-1) + 1


def test_three_processes_killed_at_random_lose_no_decision_and_show_no_lock(tmp_path):
    data, logs = tmp_path / "data", tmp_path / "logs"
    logs.mkdir()
    run_id = _finished_run(data)
    db = default_path(data)
    rng = random.Random(7)
    writer = _Restarted(lambda n: [sys.executable, "-c", WRITER, str(db), str(run_id), str(_next_k(logs))], data,
                        rng, logs, "writer")  # fmt: skip
    runs = [_Restarted(lambda n, m=m: [*RUN, "--out", str(tmp_path / f"run{m}.{n}")], data, rng, logs, f"run{m}")
            for m in (1, 2)]  # fmt: skip
    end = time.monotonic() + SECONDS
    try:
        while time.monotonic() < end:
            for proc in (writer, *runs):
                proc.tick()
            time.sleep(0.02)
    finally:
        for proc in (writer, *runs):
            proc.stop()

    said = "\n".join(p.read_text() for p in logs.glob("*.err"))
    assert "locked" not in said and "Traceback" not in said, said[-2000:]
    decided, pinned, maybe_decided, maybe_pinned = _writes(logs)
    assert len(decided) > 50 and writer.starts > 5 and min(r.starts for r in runs) > 5  # it really ran, and was killed
    with Store(db) as store:
        stored = store.judgments(run_id)
        pins = dict(store.pins(run_id))
        assert all(r.status for r in store.runs())
    for pair, status in decided.items():
        allowed = {status, maybe_decided.get(pair, status)}
        assert stored.get(pair, "open") in allowed, (pair, stored.get(pair), allowed)
    for sign, value in pinned.items():
        assert pins.get(sign) in {value, maybe_pinned.get(sign, value)}, (sign, pins.get(sign), value)
    listed = subprocess.run([sys.executable, "-m", "tui_decipher.cli", "runs", "list"], env=_env(data),
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr


def _tmpfs(folder: Path, size: str) -> list[str]:
    """A command prefix that runs what follows with `folder` a tmpfs of `size`: mounted directly
    as root, else in a private user and mount namespace (unshare); [] where neither can."""
    folder.mkdir(parents=True, exist_ok=True)
    mount = f"mount -t tmpfs -o size={size} tmpfs {folder}"
    for prefix in (["unshare", "--mount"], ["unshare", "--user", "--map-root-user", "--mount"]):
        if shutil.which(prefix[0]) is None:
            continue
        probe = subprocess.run([*prefix, "sh", "-c", f"{mount} && echo ok"], capture_output=True, text=True)
        if probe.stdout.strip() == "ok":
            return [*prefix, "sh", "-c", f'{mount} && exec "$@"', "sh"]
    return []


def test_a_run_whose_disk_fills_ends_in_one_line_and_a_readable_store(tmp_path):
    """The run folder on a 16 KiB file system: the run's files do not fit. It ends with one line
    (the run, the folder, what to do), no logging traceback, and the store still lists it."""
    data, out = tmp_path / "data", tmp_path / "full"
    prefix = _tmpfs(out, "16k")
    if not prefix:
        pytest.skip("no way to mount a small tmpfs here (neither root nor unshare)")
    command = [*prefix, sys.executable, "-m", "tui_decipher.cli", "run", "--corpus", str(CORPUS), "--method",
               "channel", "--set", "channel_steps=20", "--quiet", "--out", str(out)]  # fmt: skip
    done = subprocess.run(command, env=_env(data), capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "Logging error" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "No space left on device" in errors[0] and "--resume" in errors[0], done.stderr
    listed = subprocess.run([sys.executable, "-m", "tui_decipher.cli", "runs", "list"], env=_env(data),
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert listed.returncode == 0 and "failed" in listed.stdout, listed.stdout + listed.stderr


@pytest.mark.parametrize("how", ["truncated", "garbled"])
def test_a_truncated_or_garbled_store_is_one_line_and_left_as_it_was(tmp_path, how):
    data = tmp_path / "data"
    _finished_run(data)
    db = default_path(data)
    blob = db.read_bytes()
    bad = blob[: len(blob) // 3] if how == "truncated" else blob[:100] + bytes(range(256)) * 8 + blob[2148:]
    db.write_bytes(bad)
    for args in (["runs", "list"], ["runs", "show", "1"], ["run", "--resume", "1"], ["export", "1"]):
        result = runner.invoke(app, [*args, "--data-dir", str(data)])
        assert result.exit_code == 2, (args, result.output)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and str(db) in lines[0] and "Traceback" not in result.output, result.output
    assert db.read_bytes() == bad
