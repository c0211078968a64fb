"""The bench's report: its figures summarised over seeds, and the files that show them.

Report data, then its rendering:

- `bench_report`: `BenchReport`, one bench run (options, machine, the jobs finished so far, status);
- `summary`: `summarize` gives one `SummaryRow` per figure (mean and sample standard deviation over
  seeds, beside the paper's figure and the baseline's);
- `restarts`: `restart_choices`, what a restart ensemble would keep (the seed with the lowest
  training objective);
- `cells`: a summary row as table cells, shared by bench.md and `decipher bench`'s Rich tables;
- `markdown`: `build_markdown`, bench.md;
- `files`: `report_dict` (bench.json) and `write_report`, which rewrites bench.md and bench.json
  after every job; `write_report_copy` also writes bench.md into a document of its own
  (`decipher bench --report`).

The names below are the ones used outside the bench; the bench imports each from its module.
"""

from .bench_report import BenchReport, schedule_text
from .cells import PHASES, accuracy_cells, cost_cells
from .files import REPORT_BEGIN, REPORT_END, check_report_copy, write_report
from .markdown import build_markdown
from .restarts import restart_choices
from .summary import summarize

__all__ = [
    "PHASES",
    "REPORT_BEGIN",
    "REPORT_END",
    "BenchReport",
    "accuracy_cells",
    "build_markdown",
    "check_report_copy",
    "cost_cells",
    "restart_choices",
    "schedule_text",
    "summarize",
    "write_report",
]
