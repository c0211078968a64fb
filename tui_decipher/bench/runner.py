"""Running a bench: each job in a fresh Python process, one at a time or several at once.

`new_report` validates the options into an empty `BenchReport`; `run_bench` runs its planned jobs
(keeping an earlier report's unchanged ones when resuming) and rewrites bench.md and bench.json
after every job. A job process is `python -m tui_decipher.bench job ...` (`child_main`, through
`bench/__main__.py`), so its peak resident memory (`ru_maxrss`) is its own; it prints progress as
JSON lines and writes its `JobResult` as JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from ..session.results import data_dir, unused_path, write_atomic
from .core import BASE_SEED, BASELINE, DECIPHER, BenchError, JobReporter, peak_rss_mb
from .engine_api import CorpusError
from .jobs import (
    JobResult,
    JobSpec,
    code_commit,
    dropped_jobs,
    engine_digest,
    job_fingerprint,
    load_earlier_jobs,
    plan_jobs,
    reusable_jobs,
    seeds_for,
    set_aside_report,
    skipped_job,
)
from .report.bench_report import BenchReport, machine_info
from .report.files import write_report, write_report_copy
from .settings import SETTINGS, load_plugins, validate_names

# --- one job ----------------------------------------------------------------------------------------


def run_job(spec: JobSpec, quick: bool, reporter: JobReporter | None = None) -> JobResult:
    """Run one job in this process; failures become a 'failed' result, not an exception."""
    import torch

    reporter = reporter or JobReporter()
    setting = SETTINGS[spec.setting]
    started = time.perf_counter()
    result = JobResult(
        spec.setting, spec.kind, spec.seed, "ok", threads=torch.get_num_threads(), quick=quick, part=spec.part
    )
    try:
        seed = spec.seed if spec.seed is not None else BASE_SEED
        if spec.kind == BASELINE:
            if setting.baseline is None:
                raise ValueError(f"setting {spec.setting!r} has no baseline")
            result.rows = setting.baseline(reporter)
        elif spec.part is not None:
            if spec.part not in setting.parts:
                raise ValueError(f"setting {spec.setting!r} has no part {spec.part!r}")
            result.rows = setting.run(seed, quick, reporter, part=spec.part)
        else:
            result.rows = setting.run(seed, quick, reporter)
    except CorpusError as exc:  # a corpus file missing or unreadable here
        result.status, result.message = "skipped", str(exc)
    except Exception as exc:  # a failed job is reported in the table; the bench goes on
        traceback.print_exc()
        result.status, result.message = "failed", f"{type(exc).__name__}: {exc}"
    result.seconds = time.perf_counter() - started
    return result


def child_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of a job process: run one job, write its JobResult as JSON, print progress
    as JSON lines on stdout. Peak RSS is this process's own."""
    parser = argparse.ArgumentParser(prog="python -m tui_decipher.bench")
    sub = parser.add_subparsers(dest="command", required=True)
    job = sub.add_parser("job", help="run one bench job (used by `decipher bench`)")
    job.add_argument("--setting", required=True)
    job.add_argument("--kind", choices=(DECIPHER, BASELINE), default=DECIPHER)
    job.add_argument("--seed", type=int)
    job.add_argument("--part")
    job.add_argument("--quick", action="store_true")
    job.add_argument("--threads", type=int)
    job.add_argument("--result", required=True, type=Path)
    args = parser.parse_args(argv)
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    load_plugins()
    if args.setting not in SETTINGS:
        print(f"unknown bench setting {args.setting!r}", file=sys.stderr)
        return 2

    def emit(msg: dict[str, Any]) -> None:
        print(json.dumps(msg), flush=True)

    result = run_job(JobSpec(args.setting, args.kind, args.seed, args.part), args.quick, JobReporter(emit))
    result.peak_rss_mb = peak_rss_mb()
    write_atomic(args.result, json.dumps(result.to_dict(), indent=2) + "\n")
    return 0


def job_command(spec: JobSpec, quick: bool, result_path: Path, threads: int | None = None) -> list[str]:
    """The command line of a job process (`child_main`)."""
    cmd = [sys.executable, "-m", "tui_decipher.bench", "job", "--setting", spec.setting, "--kind", spec.kind,
           "--result", str(result_path)]  # fmt: skip
    if spec.seed is not None:
        cmd += ["--seed", str(spec.seed)]
    if spec.part is not None:
        cmd += ["--part", spec.part]
    if quick:
        cmd.append("--quick")
    if threads:
        cmd += ["--threads", str(threads)]
    return cmd


def run_job_subprocess(
    spec: JobSpec,
    quick: bool,
    result_path: Path,
    log_path: Path,
    threads: int | None = None,
    on_message: Callable[[dict[str, Any]], None] = lambda _msg: None,
    on_start: Callable[[subprocess.Popen], None] = lambda _proc: None,
) -> JobResult:
    """Run one job in a fresh Python process; its stderr goes to `log_path`."""
    cmd = job_command(spec, quick, result_path, threads)
    result_path.unlink(missing_ok=True)
    started = time.perf_counter()
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True, bufsize=1)
        on_start(proc)
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(msg, dict):
                on_message(msg)
        rc = proc.wait()
    if rc == 0 and result_path.is_file():
        result = JobResult.from_dict(json.loads(result_path.read_text(encoding="utf-8")))
        result.process_seconds = time.perf_counter() - started
        return result
    tail = [ln for ln in log_path.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
    why = f"killed by signal {-rc}" if rc < 0 else f"exit status {rc}"
    message = f"job process failed ({why})" + (f": {tail[-1]}" if tail else "")
    return JobResult(
        spec.setting,
        spec.kind,
        spec.seed,
        "failed",
        seconds=time.perf_counter() - started,
        quick=quick,
        message=message,
        part=spec.part,
    )


# --- a bench ----------------------------------------------------------------------------------------


def new_report(
    names: Sequence[str] | None,
    n_seeds: int | None,
    quick: bool,
    threads: int | None,
    command: str,
    include_extra: bool = False,
) -> BenchReport:
    """Validate the options and make an empty report (BenchError on bad ones), after importing the
    plugins' settings. `n_seeds` None: 3, or 1 with `quick`; no `names`: the default settings
    (every one with `include_extra`)."""
    load_plugins()
    if threads is not None and threads < 1:
        raise BenchError(f"--threads {threads}: need at least 1")
    if names and include_extra:
        raise BenchError("--all runs every setting: leave out --only, or drop --all")
    settings = validate_names(names, include_extra)
    seeds = seeds_for(n_seeds if n_seeds is not None else (1 if quick else 3))
    return BenchReport(command, settings, seeds, quick, threads, machine_info(threads))


def default_out_dir(root: Path | None = None, quick: bool = False) -> Path:
    return unused_path((root or data_dir()) / "bench" / (time.strftime("%Y%m%d-%H%M%S") + ("-quick" if quick else "")))


def check_parallel(parallel: int) -> None:
    """BenchError (one line) unless at least one job may run at a time."""
    if parallel < 1:
        raise BenchError(f"--jobs {parallel}: need at least 1")


class _BenchRun:
    """One `run_bench` call's state: its planned jobs, those finished (by plan number), and the job
    processes it started, which `stop_processes` terminates."""

    def __init__(
        self, report: BenchReport, out_dir: Path, isolate: bool,
        on_job_start: Callable[[JobSpec, int, int], None],
        on_message: Callable[[JobSpec, dict[str, Any]], None],
        on_job_end: Callable[[JobSpec, JobResult], None],
    ) -> None:  # fmt: skip
        self.report, self.out_dir, self.isolate = report, out_dir, isolate
        self.on_job_start, self.on_message, self.on_job_end = on_job_start, on_message, on_job_end
        self.started = time.perf_counter()
        self.jobs_dir = out_dir / "jobs"
        self.jobs_dir.mkdir(parents=True, exist_ok=True)
        self.specs = plan_jobs(report.settings, report.seeds)
        self.finished: dict[int, JobResult] = {}
        self.processes: list[subprocess.Popen] = []  # every job process started; poll() says which still run
        self.lock = threading.Lock()

    def execute(self, n: int, spec: JobSpec) -> JobResult:
        """Run planned job `n` (in its own process unless not `isolate`); skipped when its corpora
        are missing here."""
        self.on_job_start(spec, n, len(self.specs))
        result = skipped_job(spec, self.report.quick)
        if result is None and self.isolate:

            def started_process(proc: subprocess.Popen) -> None:
                with self.lock:
                    self.processes.append(proc)

            result = run_job_subprocess(
                spec, self.report.quick, self.jobs_dir / f"{spec.slug}.json", self.jobs_dir / f"{spec.slug}.log",
                self.report.threads, lambda msg: self.on_message(spec, msg), started_process,
            )  # fmt: skip
        elif result is None:
            result = run_job(spec, self.report.quick, JobReporter(lambda msg: self.on_message(spec, msg)))
        return result

    def keep(self, kept: dict[int, JobResult]) -> None:
        """Take earlier results as finished jobs, and write the report."""
        self.finished.update(kept)
        self.report.jobs = [self.finished[k] for k in sorted(self.finished)]
        write_report(self.report, self.out_dir)

    def record(self, n: int, spec: JobSpec, result: JobResult) -> None:
        """A job has ended: stamp what it ran, put it in its planned place, rewrite the report."""
        result.fingerprint = job_fingerprint(spec, self.report.quick)
        result.engine, result.commit = engine_digest(), code_commit()
        self.finished[n] = result
        self.report.jobs = [self.finished[k] for k in sorted(self.finished)]
        self.report.wall_seconds = time.perf_counter() - self.started
        write_report(self.report, self.out_dir)
        self.on_job_end(spec, result)

    def run_parallel(self, to_run: list[tuple[int, JobSpec]], parallel: int) -> None:
        """`parallel` jobs at once, recorded as they end; on an exception (Ctrl-C) the queued jobs
        are dropped and the running ones' processes stopped."""
        pool = ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="bench-job")
        try:
            pending: dict[Future, tuple[int, JobSpec]] = {pool.submit(self.execute, n, s): (n, s) for n, s in to_run}
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: pending[f][0]):
                    n, spec = pending.pop(future)
                    self.record(n, spec, future.result())
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
            self.stop_processes()
            pool.shutdown(wait=True)

    def stop_processes(self) -> None:
        """Terminate the job processes this bench started that still run, and wait for them."""
        with self.lock:
            running = [p for p in self.processes if p.poll() is None]
        for proc in running:
            proc.terminate()
        for proc in running:
            proc.wait()


def _readable_jobs(out_dir: Path) -> list[JobResult]:
    """The jobs of the report in `out_dir`; none when it cannot be read (it is set aside all the same)."""
    try:
        return load_earlier_jobs(out_dir)[0]
    except BenchError:
        return []


def run_bench(
    report: BenchReport,
    out_dir: Path,
    isolate: bool = True,
    on_job_start: Callable[[JobSpec, int, int], None] = lambda _spec, _i, _n: None,
    on_message: Callable[[JobSpec, dict[str, Any]], None] = lambda _spec, _msg: None,
    on_job_end: Callable[[JobSpec, JobResult], None] = lambda _spec, _res: None,
    parallel: int = 1,
    earlier: tuple[Sequence[JobResult], str] | None = None,
    on_job_reused: Callable[[JobSpec, JobResult], None] = lambda _spec, _res: None,
    report_copy: Path | None = None,
    on_report_set_aside: Callable[[Path, list[JobResult]], None] = lambda _path, _dropped: None,
) -> BenchReport:
    """Run the report's jobs, `parallel` of them at once (1: one after another), rewriting the
    report files after each; `report.jobs` keeps the planned order whatever order they end in.
    `isolate=False` runs jobs in this process (tests; no per-job peak memory). The callbacks may
    come from worker threads when `parallel` > 1. A KeyboardInterrupt stops the running jobs'
    processes, marks the report cancelled and re-raises. `earlier` (jobs and start time of an
    earlier report, `load_earlier_jobs`) resumes it: its ok jobs whose fingerprint is unchanged are
    kept, not run again. A report already in `out_dir` whose ok jobs this bench will not all keep
    (a fresh bench, or a resumed one whose engine, configs, settings or seeds changed) is first set
    aside as bench.replaced-TIME.json (`on_report_set_aside`: its new path and the jobs not kept).
    `report_copy`: when the bench finishes (not when it is cancelled), bench.md is also written into
    this file (`write_report_copy`)."""
    check_parallel(parallel)
    bench = _BenchRun(report, out_dir, isolate, on_job_start, on_message, on_job_end)
    kept = reusable_jobs(bench.specs, report.quick, *earlier) if earlier is not None else {}
    if (out_dir / "bench.json").is_file():  # before `keep` writes the new report over it
        before = earlier[0] if earlier is not None else _readable_jobs(out_dir)
        dropped = dropped_jobs(before, kept)
        if earlier is None or dropped:
            on_report_set_aside(set_aside_report(out_dir), dropped)
    bench.keep(kept)
    for n in sorted(kept):
        on_job_reused(bench.specs[n - 1], kept[n])
    to_run = [(n, spec) for n, spec in enumerate(bench.specs, start=1) if n not in kept]
    try:
        if parallel > 1:
            bench.run_parallel(to_run, parallel)
        else:
            for n, spec in to_run:
                bench.record(n, spec, bench.execute(n, spec))
        report.status = "finished"
    except KeyboardInterrupt:
        report.status = "cancelled"
        raise
    finally:
        bench.stop_processes()
        report.finished_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        report.wall_seconds = time.perf_counter() - bench.started
        write_report(report, out_dir)
    if report_copy is not None:
        write_report_copy(report, report_copy)
    return report
