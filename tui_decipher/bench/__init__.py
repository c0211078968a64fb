"""`decipher bench`: the paper's experiments, run here and set beside the paper's figures.

A *setting* (e.g. `ugaritic`) names one experiment and the figures (rows) it reports: `ugaritic`
gives two, evaluated on the small subset it trained on and on the full list. Every (setting, seed)
is a *job*, run in a fresh Python process so that its peak memory is its own; a setting in *parts*
(`romance`: six language pairs) runs one job per (seed, part), and the edit-distance baseline is a
job once per setting. Results are aggregated over seeds into bench.md and bench.json, rewritten
after every job.

Where each part lives:

- `settings/`: the catalogue (one entry a setting: its experiment, rows with the paper's figures,
  group, config changes), a module per family (`paper`, `variants`, `generated`, `refine`), and
  the registry `SETTINGS` (`settings/__init__.py`);
- `experiments/`: how a setting runs, a module per kind (`paper`: one corpus, Ugaritic's transfer
  to the full list, the Romance pairs; `generated`: corpora the bench writes; `refine`: the
  simulated reviewer), and what they share with the `--quick` schedule (`experiment`);
- `user_path`: `decipher run` itself as a user runs it (`fuzz_cases`: the fuzz-user word lists);
- `reviewer_simulation`: the simulated reviewer and scholar of the refine settings (reads gold);
- `jobs`: `JobSpec` / `JobResult`, the plan of a bench's jobs, fingerprints (`engine_digest`,
  `source_digest`) and what `--resume` keeps;
- `runner`: a job in this process or its own (`python -m tui_decipher.bench job`, `__main__`),
  and `run_bench`;
- `report/`: its data (`bench_report`, `summary`: summaries over seeds, `restarts`: the restart
  table) and its rendering (`cells`, `markdown`: bench.md, `files`: bench.json, `--report` copies);
- `core`: the shared vocabulary (`BenchSetting`, `RowSpec`, `RowResult`, `JobReporter`);
- `engine_api`: every name the bench takes from the engine, imported there only.

The bench imports the engine, never Textual; the engine never imports the bench, and `decipher`
imports it only in its `bench` command. A module named in $DECIPHER_BENCH_PLUGINS
(comma-separated) is imported by `runner.new_report` and by each job process; it can add settings
with the names below (`from tui_decipher import bench; bench.register(bench.BenchSetting(...))`).
"""

from .core import BenchError, BenchSetting, JobReporter, RowResult, RowSpec
from .settings import SETTINGS, register

__all__ = ["SETTINGS", "BenchError", "BenchSetting", "JobReporter", "RowResult", "RowSpec", "register"]
