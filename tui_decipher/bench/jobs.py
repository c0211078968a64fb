"""Bench jobs: what one is (`JobSpec`) and what it measured (`JobResult`), the plan of a bench's
jobs, and what a resumed bench may keep.

Every (setting, seed) is a job, or one job per part for a setting in parts (Romance's six pairs);
the edit-distance baseline is a job once per setting that has one. A job's *fingerprint* digests
what it runs: its setting, seed, part, schedule, configs and the engine's code (`engine_digest`).
`--resume` keeps an earlier ok job only when its fingerprint is unchanged; a report whose results
the new bench will not all keep is set aside (`set_aside_report`), never overwritten.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import json
import subprocess
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .core import BASE_SEED, BASELINE, DECIPHER, BenchError, BenchSetting, RowResult
from .engine_api import entry_path, load_registry
from .settings import SETTINGS

PACKAGE_DIR = Path(__file__).parent.parent  # tui_decipher/


@dataclass(frozen=True)
class JobSpec:
    setting: str
    kind: str  # DECIPHER | BASELINE
    seed: int | None = None  # None for baselines
    part: str | None = None  # one of the setting's parts, for a setting that has them

    @property
    def label(self) -> str:
        part = "" if self.part is None else f" {self.part}"
        return f"{self.setting}{part} {self.kind}" + ("" if self.seed is None else f" seed {self.seed}")

    @property
    def slug(self) -> str:
        part = "" if self.part is None else f"-{self.part}"
        return f"{self.setting}{part}-{self.kind}" + ("" if self.seed is None else f"-{self.seed}")


@dataclass
class JobResult:
    setting: str
    kind: str
    seed: int | None
    status: str  # "ok" | "failed" | "skipped" | "cancelled"
    rows: list[RowResult] = field(default_factory=list)
    seconds: float = 0.0  # the job's own work (inside its process)
    process_seconds: float | None = None  # the whole process: interpreter and imports too
    peak_rss_mb: float | None = None  # ru_maxrss of the job's own process; None when not isolated
    threads: int | None = None  # torch intra-op threads the job ran with
    quick: bool = False
    message: str = ""
    part: str | None = None
    # What the job ran (see `job_fingerprint`); a resumed bench reuses an ok job only when it matches.
    fingerprint: str = ""
    reused_from: str | None = None  # started_at of the earlier bench run this result was kept from
    engine: str = ""  # `engine_digest()` of the code the job ran
    commit: str = ""  # `code_commit()` of the bench that ran it ("" outside a git checkout)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JobResult:
        data = dict(data)
        data["rows"] = [RowResult(**r) for r in data.get("rows", [])]
        return cls(**data)


def seeds_for(n: int) -> list[int]:
    """The seeds of an `n`-seed bench: BASE_SEED and the next ones (BenchError below 1)."""
    if n < 1:
        raise BenchError(f"--seeds {n}: need at least 1")
    return [BASE_SEED + k for k in range(n)]


def plan_jobs(names: Sequence[str], seeds: Sequence[int]) -> list[JobSpec]:
    """The baselines first (once per baseline key; seconds each), then seed by seed every setting
    (split into its parts): a bench stopped part-way, or resumed over several days, has a complete
    table of its first seeds rather than every seed of its first settings."""
    jobs: list[JobSpec] = []
    for name in names:
        key = SETTINGS[name].baseline_key
        if key in SETTINGS and SETTINGS[key].baseline is not None and JobSpec(key, BASELINE) not in jobs:
            jobs.append(JobSpec(key, BASELINE))
    for seed in seeds:
        for name in names:
            jobs += [JobSpec(name, DECIPHER, seed, part) for part in SETTINGS[name].parts or (None,)]
    return jobs


# --- what a job ran ---------------------------------------------------------------------------------


@functools.cache
def engine_digest() -> str:
    """A digest of the engine's code (tui_decipher/engine/**/*.py, see `source_digest`), part of
    every job's fingerprint: a resumed bench runs a job again when the engine changed since it
    ran, and keeps it across changes to the front ends, comments and docstrings."""
    engine = PACKAGE_DIR / "engine"
    return source_digest(sorted(engine.rglob("*.py")), root=engine)


def source_digest(paths: Iterable[Path], root: Path | None = None) -> str:
    """A digest of Python files as Python parses them: comments, docstrings and layout left out.
    Each file is named by its path under `root` (by its name without one)."""
    digest = hashlib.sha256()
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if (
                isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                node.body = body[1:] or [ast.Pass()]
        name = path.relative_to(root).as_posix() if root is not None else path.name
        digest.update(name.encode() + b"\0" + ast.dump(tree).encode() + b"\0")
    return digest.hexdigest()[:12]


@functools.cache
def code_commit() -> str:
    """The git commit of the checkout the package runs from, "+changes" when its tui_decipher/ has
    uncommitted edits; "" when it is not a git checkout (an installed wheel)."""
    root = PACKAGE_DIR.resolve().parent
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10
        )
        if head.returncode != 0:
            return ""
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", "tui_decipher"],
            capture_output=True, text=True, timeout=10,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return ""
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def job_fingerprint(spec: JobSpec, quick: bool) -> str:
    """A digest of what a job runs: its setting, seed, part, schedule, the engine's code
    (`engine_digest`) and, for a training job, the full configs the setting builds for that seed.
    A resumed bench reuses a finished job only when this is unchanged, so a result is never carried
    over to a preset, schedule or engine it did not run."""
    setting = SETTINGS.get(spec.setting)
    configs: Any = None
    if setting is not None and spec.kind == DECIPHER and setting.configs is not None:
        try:
            built = setting.configs(spec.seed if spec.seed is not None else BASE_SEED, quick)
            configs = [c.to_dict() for c in built]
        except Exception as exc:  # a broken plugin: its jobs never match, so they run again
            configs = f"error: {type(exc).__name__}: {exc}"
    what = {
        "setting": spec.setting, "kind": spec.kind, "seed": spec.seed, "part": spec.part, "quick": quick,
        "description": setting.description if setting is not None else None, "configs": configs,
        "engine": engine_digest(),
    }  # fmt: skip
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()[:16]


# --- resuming and skipping -------------------------------------------------------------------------


def has_bench_report(out_dir: Path) -> bool:
    """Whether `out_dir` holds a bench report to resume (its bench.json)."""
    return (out_dir / "bench.json").is_file()


def load_earlier_jobs(out_dir: Path) -> tuple[list[JobResult], str]:
    """The jobs of the bench report in `out_dir` and when that run started (BenchError, one line,
    when there is none or it cannot be read)."""
    path = out_dir / "bench.json"
    if not path.is_file():
        raise BenchError(f"--resume: {path}: no bench report to resume")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        jobs = [JobResult.from_dict(j) for j in data["jobs"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BenchError(f"--resume: {path}: not a readable bench report ({type(exc).__name__}: {exc})") from None
    return jobs, str(data.get("started_at") or "an earlier run")


def reusable_jobs(
    specs: Sequence[JobSpec], quick: bool, earlier: Sequence[JobResult], started_at: str
) -> dict[int, JobResult]:
    """Planned job number -> an earlier ok result of the same job with an unchanged fingerprint
    (which covers `quick`)."""
    by_key = {(j.setting, j.kind, j.seed, j.part): j for j in earlier if j.status == "ok" and j.fingerprint}
    kept: dict[int, JobResult] = {}
    for n, spec in enumerate(specs, start=1):
        old = by_key.get((spec.setting, spec.kind, spec.seed, spec.part))
        if old is not None and old.fingerprint == job_fingerprint(spec, quick):
            kept[n] = dataclasses.replace(old, reused_from=old.reused_from or started_at)
    return kept


def dropped_jobs(earlier: Sequence[JobResult], kept: dict[int, JobResult]) -> list[JobResult]:
    """The earlier report's ok jobs that a bench keeping `kept` (`reusable_jobs`) would not carry
    over: their fingerprint changed, or their setting or seed is not in this bench."""
    kept_keys = {(j.setting, j.kind, j.seed, j.part) for j in kept.values()}
    return [j for j in earlier if j.status == "ok" and (j.setting, j.kind, j.seed, j.part) not in kept_keys]


def set_aside_report(out_dir: Path) -> Path:
    """Rename `out_dir`'s bench.json (and bench.md) to bench.replaced-TIME.json (.md), so that a bench
    which will not keep every result in them never overwrites them; the new json path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    n, target = 1, out_dir / f"bench.replaced-{stamp}.json"
    while target.exists() or target.with_suffix(".md").exists():
        n += 1
        target = out_dir / f"bench.replaced-{stamp}-{n}.json"
    markdown = out_dir / "bench.md"
    if markdown.is_file():
        markdown.replace(target.with_suffix(".md"))
    (out_dir / "bench.json").replace(target)
    return target


def missing_corpora(setting: BenchSetting) -> list[str]:
    """The registry corpora a setting needs that cannot be found here."""
    registry = load_registry()
    return [name for name in setting.corpora if name not in registry or entry_path(registry[name]) is None]


def skipped_job(spec: JobSpec, quick: bool) -> JobResult | None:
    """A 'skipped' result when the setting's corpora are missing here, else None."""
    missing = missing_corpora(SETTINGS[spec.setting])
    if not missing:
        return None
    return JobResult(
        spec.setting, spec.kind, spec.seed, "skipped", quick=quick, message=f"corpus {', '.join(missing)} not found",
        part=spec.part,
    )  # fmt: skip
