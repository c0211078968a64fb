"""The report's files: bench.md and bench.json in the bench's folder (`write_report`, rewritten
after every job), and bench.md written into a document of its own between two marker lines
(`write_report_copy`, `decipher bench --report`)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from ...session.results import write_atomic
from ..core import BenchError, BenchSetting
from ..experiments.experiment import QUICK_CHANGES
from ..settings import SETTINGS
from .bench_report import BenchReport, schedule_text
from .markdown import build_markdown
from .summary import summarize


def _setting_configs(setting: BenchSetting, report: BenchReport) -> list[dict[str, Any]] | None:
    """The configs of the setting's first seed (the others differ only in `seed`)."""
    if setting.configs is None or not report.seeds:
        return None
    try:
        return [c.to_dict() for c in setting.configs(report.seeds[0], report.quick)]
    except Exception as exc:  # a plugin's configs must not break the report
        return [{"error": f"{type(exc).__name__}: {exc}"}]


def report_dict(report: BenchReport) -> dict[str, Any]:
    """Everything in the report as JSON-ready values."""
    return {
        "version": 1,
        "command": report.command,
        "status": report.status,
        "started_at": report.started_at,
        "finished_at": report.finished_at,
        "wall_seconds": round(report.wall_seconds, 3),
        "machine": report.machine,
        "options": {
            "settings": report.settings,
            "seeds": report.seeds,
            "quick": report.quick,
            "threads": report.threads,
        },
        "schedule": schedule_text(report),
        "quick_changes": QUICK_CHANGES if report.quick else None,
        "settings": {
            name: {
                "description": s.description,
                "group": s.group,
                "note": s.note,
                "rows": [dataclasses.asdict(r) for r in s.rows],
                "configs": _setting_configs(s, report),
            }
            for name in report.settings
            if (s := SETTINGS.get(name)) is not None
        },
        "summary": [dataclasses.asdict(r) for r in summarize(report)],
        "jobs": [j.to_dict() for j in report.jobs],
    }


def write_report(report: BenchReport, out_dir: Path) -> dict[str, Path]:
    """bench.md and bench.json in out_dir, each written atomically."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"markdown": out_dir / "bench.md", "json": out_dir / "bench.json"}
    write_atomic(paths["markdown"], build_markdown(report))
    write_atomic(paths["json"], json.dumps(report_dict(report), indent=2, ensure_ascii=False) + "\n")
    return paths


# `decipher bench --report PATH`: bench.md also written into a document, between these markers.
REPORT_BEGIN = "<!-- decipher bench report: begin (rewritten by `decipher bench --report`; edit around it) -->"
REPORT_END = "<!-- decipher bench report: end -->"


def _split_at_markers(text: str) -> tuple[str, str] | None:
    """The text before the begin marker (included) and from the end marker on; None without both."""
    begin, end = text.find(REPORT_BEGIN), text.find(REPORT_END)
    if begin < 0 or end < begin:
        return None
    return text[: begin + len(REPORT_BEGIN)], text[end:]


def check_report_copy(path: Path) -> None:
    """BenchError (one line) unless `write_report_copy` may write `path`: it does not exist yet, or
    it holds the report markers (begin, then end), so the text around them can be kept."""
    if not path.exists():
        return
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchError(f"--report {path}: cannot read it ({type(exc).__name__}: {exc})") from None
    if _split_at_markers(text) is None:
        raise BenchError(
            f"--report {path}: the file exists without the lines {REPORT_BEGIN!r} and {REPORT_END!r}; "
            "add them where the report goes, or name a new file"
        )


def write_report_copy(report: BenchReport, path: Path) -> None:
    """bench.md written into `path`, atomically: between its report markers, the text around them
    kept; a new file holds the markers and the report alone (see `check_report_copy`)."""
    check_report_copy(path)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    before, after = _split_at_markers(old) or (REPORT_BEGIN, REPORT_END + "\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, f"{before}\n\n{build_markdown(report)}\n{after}")
