"""A run's files: summary.json, proposals.tsv and char_map.tsv, written atomically.

Shared by `decipher run` and the TUI (through run_session.py); imports the engine only, never a UI library.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from platformdirs import user_data_dir

from ..engine.channels.alignment import alignment_text
from ..engine.corpora.corpus import Corpus, word_text
from ..engine.evaluation.metrics import calibration_curve
from ..engine.run.config import ConfigSources

if TYPE_CHECKING:  # annotations only: the store's commands never import the methods (and torch)
    from ..engine.methods import DecipherResult

APP_NAME = "tui-decipher"


def data_dir(override: str | Path | None = None) -> Path:
    """The user data folder: `override` (--data-dir), else $DECIPHER_DATA_DIR, else platformdirs'."""
    override = override or os.environ.get("DECIPHER_DATA_DIR")
    return Path(override).expanduser() if override else Path(user_data_dir(APP_NAME, appauthor=False))


def new_run_dir(corpus_name: str, preset: str | None, root: Path | None = None) -> Path:
    """A fresh folder under the data dir's runs/, named by time, corpus and preset."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{corpus_name}-{preset or 'custom'}").strip("-")
    return unused_path((root or data_dir()) / "runs" / f"{time.strftime('%Y%m%d-%H%M%S')}-{slug}")


def unused_path(base: Path) -> Path:
    """`base`, or where it exists already, the first of BASE-2, BASE-3, ... that does not."""
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    return path


def branch_run_dir(run_dir: Path) -> Path:
    """A fresh folder beside `run_dir` for a refinement branched from it: NAME-branch-1, -2, ..."""
    n = 1
    while (path := run_dir.with_name(f"{run_dir.name}-branch-{n}")).exists():
        n += 1
    return path


def write_atomic(path: Path, text: str) -> None:
    """Write text to a temporary file beside `path`, then rename it over `path`."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def summary_dict(result: DecipherResult, corpus: Corpus, sources: ConfigSources, corpus_path: str) -> dict[str, Any]:
    """Everything a reader of the run needs, as JSON-ready values."""
    scored = result.proposal_scores()
    return {
        "corpus": corpus.name,
        "corpus_path": corpus_path,
        "lost_language": corpus.lost_code,
        "known_language": corpus.known_code,
        "corpus_stats": corpus.stats(),
        "preset": sources.preset,
        "config_file": sources.toml,
        "overrides": sources.overrides,
        "seed": result.config.seed,
        "config": result.config.to_dict(),
        "decisions": result.decisions,
        "status": result.status,
        "device": result.device,
        "threads": result.threads,
        "n_cognates": result.demand,
        "accuracy": result.accuracy,
        "accuracy_model": result.accuracy_model,
        "n_evaluated": result.n_evaluated,
        "n_proposals": len(result.proposals),
        "n_beyond": len(result.beyond),  # pairs past D that the evidence allows (beyond_d.tsv), none counted below
        # The user's metric beside the paper's protocol (`accuracy`): the proposals at the run's own D.
        "proposal_scores": scored.as_dict() if scored is not None else None,
        # Its calibration line: each score bin's (mean score, share correct, proposals).
        "calibration": calibration_rows([p.score for p in result.proposals], [bool(p.gold) for p in result.proposals])
        if scored is not None
        else None,
        "seconds": round(result.seconds, 3),
        "phase_seconds": {k: round(v, 3) for k, v in result.phase_seconds.items()},
        "peak_memory": {"bytes": result.peak_bytes, "phase": result.peak_phase},
        "objective": result.objective,
        "restart": result.restart,
        "restart_objectives": result.restart_objectives,
        "rounds": [dataclasses.asdict(r) for r in result.rounds],
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def calibration_rows(scores: list[float], correct: list[bool]) -> list[list[float]]:
    """summary.json's calibration line: each score bin's (mean score, share correct, proposals)."""
    curve = calibration_curve(scores, correct) if scores else []
    return [[round(mean, 4), round(share, 4), n] for mean, share, n in curve]


def proposals_tsv(result: DecipherResult, corpus: Corpus, beyond: bool = False) -> str:
    """One line per proposal, best first: the words, score, cost, gold (where the corpus has it), and
    the method's reading of the pair (`alignment`: lost segments / known segments, `alignment_p`:
    each segment's probability; engine/channels/alignment.py). `beyond`: the pairs past D instead
    (`DecipherResult.beyond`), in the same columns."""
    has_gold = corpus.has_gold
    header = ["lost", "known", "score", "cost"] + (["gold"] if has_gold else []) + ["alignment", "alignment_p"]
    lines = ["\t".join(header)]
    for p in result.beyond if beyond else result.proposals:
        row = [
            word_text(corpus.lost_words[p.lost]),
            word_text(corpus.known_words[p.known]),
            f"{p.score:.6f}",
            f"{p.cost:.4f}",
        ]
        if has_gold:
            row.append("1" if p.gold else "0")
        row += [alignment_text(p.alignment), " ".join(f"{seg.p:.4f}" for seg in p.alignment)]
        lines.append("\t".join(row))
    return "\n".join(lines) + "\n"


def char_map_tsv(result: DecipherResult) -> str:
    """One row per lost symbol: its top known symbols with probabilities."""
    width = max((len(v) for v in result.char_map.values()), default=0)
    header = ["lost"] + [f"{kind}{n}" for n in range(1, width + 1) for kind in ("known", "p")]
    lines = ["\t".join(header)]
    for lost, tops in sorted(result.char_map.items()):
        cells = [lost]
        for known, prob in tops:
            cells += [known, f"{prob:.4f}"]
        lines.append("\t".join(cells))
    return "\n".join(lines) + "\n"


def write_run_files(
    out_dir: Path, result: DecipherResult, corpus: Corpus, sources: ConfigSources, corpus_path: str
) -> dict[str, Path]:
    """Write the run files into out_dir (created if needed): summary.json, proposals.tsv,
    char_map.tsv and, where the run read pairs past its D, beyond_d.tsv; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "summary": out_dir / "summary.json",
        "proposals": out_dir / "proposals.tsv",
        "char_map": out_dir / "char_map.tsv",
    }
    write_atomic(paths["proposals"], proposals_tsv(result, corpus))
    beyond = out_dir / "beyond_d.tsv"
    if result.beyond:
        paths["beyond"] = beyond
        write_atomic(beyond, proposals_tsv(result, corpus, beyond=True))
    elif beyond.exists():  # a run written into the folder before read some: they are not this run's
        beyond.unlink()
    write_atomic(paths["char_map"], char_map_tsv(result))
    summary = summary_dict(result, corpus, sources, corpus_path)
    write_atomic(paths["summary"], json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    return paths
