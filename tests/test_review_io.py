"""`decipher review import|export` through the CliRunner: judgments as a TSV file without the TUI.

One quick channel run per test (a tiny .cog corpus, a few channel steps); the store is read
after each command, so a refused file is seen to store nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_support import seed_store
from typer.testing import CliRunner

from tui_decipher.cli import app
from tui_decipher.engine.constraints.review import ReviewConstraints
from tui_decipher.engine.corpora.corpus import Corpus
from tui_decipher.session.review_io import RunVocabulary
from tui_decipher.store import ACCEPTED, OPEN, REJECTED, UNSURE, Store, default_path

runner = CliRunner()
# Lost words 0 abca, 1 bcdb, 2 cdec, 3 deab, 4 eabc; known words 0 abda, 1 bceb, 2 cdfc, 3 deac, 4 eabd, 5 zzza.
COG = "xl\tyk\nabca\tabda\nbcdb\tbceb\ncdec\tcdfc\ndeab\tdeac\neabc\teabd\n_\tzzza\n"
HEADER = "lost\tknown\tdecision\n"


def cli(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture
def run(tmp_path: Path, data_dir: Path) -> tuple[int, Path]:
    """A finished quick run on the tiny corpus: (its id, its run folder)."""
    corpus = tmp_path / "tiny.cog"
    corpus.write_text(COG, encoding="utf-8")
    folder = tmp_path / "run"
    result = cli("run", "--corpus", str(corpus), "--method", "channel", "--set", "channel_steps=4", "--quiet",
                 "--out", str(folder))  # fmt: skip
    assert result.exit_code == 0, result.output
    with Store(default_path(data_dir)) as store:
        (row,) = store.runs()
    return row.id, folder


def decisions(data_dir: Path, run_id: int) -> dict[tuple[int, int], str]:
    with Store(default_path(data_dir)) as store:
        return store.judgments(run_id)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_import_export_import_round_trips(run, data_dir: Path, tmp_path: Path) -> None:
    run_id, _ = run
    # Any pair of the vocabularies can be judged, proposed or not (bcdb -> zzza, say); `open` clears
    # a decision; the same decision twice counts once; an empty line is skipped.
    given = write(tmp_path / "mine.tsv", HEADER + "eabc\teabd\taccepted\nabca\tabda\taccepted\nbcdb\tzzza\trejected\n"
                  "cdec\tcdfc\tunsure\ndeab\tdeac\topen\nabca\tabda\taccepted\n\n")  # fmt: skip
    result = cli("review", "import", str(run_id), str(given))
    assert result.exit_code == 0, result.output
    summary = f"imported 5 decisions: 2 accepted, 1 rejected, 1 unsure, 1 cleared into run #{run_id}"
    assert result.output.strip() == summary
    first = decisions(data_dir, run_id)
    assert first == {(4, 4): ACCEPTED, (0, 0): ACCEPTED, (1, 5): REJECTED, (2, 2): UNSURE}

    out = tmp_path / "out" / "decisions.tsv"
    exported = cli("review", "export", str(run_id), str(out))
    assert exported.exit_code == 0, exported.output
    assert f"wrote {out}: run #{run_id}: 4 decision(s): 2 accepted, 1 rejected, 1 unsure" in exported.output
    text = out.read_text(encoding="utf-8")
    assert text == HEADER + "abca\tabda\taccepted\nbcdb\tzzza\trejected\ncdec\tcdfc\tunsure\neabc\teabd\taccepted\n"
    to_stdout = cli("review", "export", str(run_id), "-")
    assert to_stdout.exit_code == 0 and to_stdout.stdout == text

    # Clear them all, import the export: the same decisions again.
    cleared = write(tmp_path / "clear.tsv", HEADER + "".join(f"{line.rsplit(chr(9), 1)[0]}\topen\n"
                                                             for line in text.splitlines()[1:]))  # fmt: skip
    assert cli("review", "import", str(run_id), str(cleared)).exit_code == 0
    assert decisions(data_dir, run_id) == {}
    again = cli("review", "import", str(run_id), str(out))
    assert again.exit_code == 0, again.output
    assert decisions(data_dir, run_id) == first
    with Store(default_path(data_dir)) as store:  # proposals see them as the Review screen would
        statuses = {(p.lost_index, p.known_index): p.status for p in store.proposals(run_id)}
    assert all(statuses[pair] == status for pair, status in first.items() if pair in statuses)


BAD_FILES = {
    "bad header": ("lost\tknown\tstatus\nabca\tabda\taccepted\n", 1, "bad header"),
    "no header": ("abca\tabda\taccepted\n", 1, "bad header"),
    "empty file": ("", 1, "empty file"),
    "two columns": (HEADER + "abca\tabda\taccepted\nbcdb\tbceb\n", 3, "2 column(s), expected 3"),
    "four columns": (HEADER + "abca\tabda\taccepted\t0.9\n", 2, "4 column(s), expected 3"),
    "unknown lost word": (HEADER + "abca\tabda\taccepted\nqqqq\tbceb\trejected\n", 3, "unknown lost word 'qqqq'"),
    "swapped columns": (HEADER + "abda\tabca\taccepted\n", 2, "are the columns swapped?"),
    "unknown known word": (HEADER + "abca\tqqqq\taccepted\n", 2, "unknown known word 'qqqq'"),
    "unknown decision": (HEADER + "abca\tabda\taccepted\nbcdb\tbceb\tmaybe\n", 3, "unknown decision 'maybe'"),
    "conflicting duplicate": (HEADER + "abca\tabda\taccepted\nbcdb\tbceb\tunsure\nabca\tabda\trejected\n", 4,
                              "abca -> abda is rejected here but accepted on line 2"),
}  # fmt: skip


def test_a_bad_line_is_one_error_naming_file_and_line_and_stores_nothing(run, data_dir: Path, tmp_path: Path) -> None:
    run_id, _ = run
    with Store(default_path(data_dir)) as store:
        store.set_judgment(run_id, 3, 3, REJECTED)  # judged before: must survive every refused import
    for name, (text, line, problem) in BAD_FILES.items():
        path = write(tmp_path / f"{name.replace(' ', '-')}.tsv", text)
        result = cli("review", "import", str(run_id), str(path))
        assert result.exit_code == 2, (name, result.output)
        lines = [x for x in result.output.splitlines() if x.strip()]
        assert len(lines) == 1 and "Traceback" not in result.output, (name, result.output)
        assert f"{path}:{line}: " in lines[0] and problem in lines[0], (name, lines[0])
        assert decisions(data_dir, run_id) == {(3, 3): REJECTED}, name


def test_unknown_run_and_missing_file_are_one_line_errors(run, data_dir: Path, tmp_path: Path) -> None:
    run_id, _ = run
    good = write(tmp_path / "good.tsv", HEADER + "abca\tabda\taccepted\n")
    for args, fragment in (
        (("review", "import", "99", str(good)), "no run #99"),
        (("review", "import", str(tmp_path / "nowhere"), str(good)), "not a run in"),
        (("review", "import", str(run_id), str(tmp_path / "missing.tsv")), "missing.tsv: file not found"),
        (("review", "export", "99", "-"), "no run #99"),
    ):
        result = cli(*args)
        lines = [x for x in result.output.splitlines() if x.strip()]
        assert result.exit_code == 2 and len(lines) == 1 and fragment in lines[0], (args, result.output)
    assert decisions(data_dir, run_id) == {}


def test_a_run_folder_names_the_run(run, data_dir: Path, tmp_path: Path) -> None:
    run_id, folder = run
    given = write(tmp_path / "mine.tsv", HEADER + "deab\tdeac\tunsure\n")
    result = cli("review", "import", str(folder), str(given))
    assert result.exit_code == 0, result.output
    assert f"into run #{run_id}" in result.output
    assert decisions(data_dir, run_id) == {(3, 3): UNSURE}
    exported = cli("review", "export", str(folder), "-")
    assert exported.exit_code == 0 and exported.stdout == HEADER + "deab\tdeac\tunsure\n"


def test_a_corpus_changed_since_the_run_is_refused(run, data_dir: Path, tmp_path: Path) -> None:
    """Decisions are stored by word index: matched against other words they would judge other pairs."""
    run_id, _ = run
    (tmp_path / "tiny.cog").write_text(COG.replace("abca\tabda\n", ""), encoding="utf-8")
    given = write(tmp_path / "mine.tsv", HEADER + "bcdb\tbceb\taccepted\n")
    result = cli("review", "import", str(run_id), str(given))
    assert result.exit_code == 2 and "has changed since the run" in result.output, result.output
    assert decisions(data_dir, run_id) == {}


def test_unsure_is_stored_but_never_a_constraint() -> None:
    review = ReviewConstraints.from_judgments({(0, 0): ACCEPTED, (1, 2): UNSURE, (2, 1): REJECTED, (3, 3): UNSURE})
    assert review.accepted == ((0, 0),) and review.rejected == ((2, 1),)
    assert len(review) == 2 and review.judged_lost() == {0, 2}
    assert len(ReviewConstraints.from_judgments({(0, 0): UNSURE})) == 0


def test_equal_spellings_match_the_first_index() -> None:
    """A segmented source can hold `k ʷ a` and `kʷ a`: both read `kʷa` in the store and in a file."""
    corpus = Corpus("seg", "xl", "yk", (("k", "ʷ", "a"), ("kʷ", "a"), ("t", "a")), (("ka",), ("k", "a")),
                    segmented=True)  # fmt: skip
    vocab = RunVocabulary.of(corpus)
    assert vocab.lost == ("kʷa", "kʷa", "ta") and vocab.lost_index("kʷa") == 0 and vocab.lost_index("ta") == 2
    assert vocab.known_index("ka") == 0 and vocab.known_index("kʷa") is None


def test_exports_carry_unsure_with_all_and_leave_it_out_otherwise(data_dir: Path, tmp_path: Path) -> None:
    run_id = seed_store(data_dir, tmp_path)  # the fixed run (no training): 8 proposals
    with Store(default_path(data_dir)) as store:
        rows = store.proposals(run_id)
        store.set_judgments(run_id, [(rows[0].lost_index, rows[0].known_index, ACCEPTED),
                                     (rows[1].lost_index, rows[1].known_index, UNSURE)])  # fmt: skip
    unsure = f"{rows[1].lost}\t{rows[1].known}"
    every = cli("export", str(run_id), "--all", "-o", "-")
    assert every.exit_code == 0, every.output
    shown = [line.split("\t")[:4] for line in every.stdout.splitlines()[1:]]  # then each pair's reading
    assert [rows[1].lost, rows[1].known, f"{rows[1].score:.6f}", UNSURE] in shown
    assert [cells[3] for cells in shown].count(OPEN) == 6
    accepted = cli("export", str(run_id), "-o", "-")
    assert accepted.exit_code == 0 and unsure not in accepted.stdout and rows[0].lost in accepted.stdout
    cog = cli("export", str(run_id), "--format", "cog", "-o", "-")
    assert cog.exit_code == 0 and rows[1].lost not in cog.stdout and rows[0].lost in cog.stdout
    edictor = cli("export", str(run_id), "--format", "edictor", "--all", "-o", "-")
    assert edictor.exit_code == 0, edictor.output
    header, *lines = [line.split("\t") for line in edictor.stdout.splitlines() if line and not line.startswith("#")]
    form, status = header.index("FORM"), header.index("STATUS")
    assert [cells[status] for cells in lines if cells[form] == rows[1].lost] == [UNSURE]
    only_accepted = cli("export", str(run_id), "--format", "edictor", "-o", "-")
    assert only_accepted.exit_code == 0 and rows[1].lost not in only_accepted.stdout


def test_a_sign_values_file_imports_as_pins_and_a_bad_one_pins_nothing(run, data_dir: Path, tmp_path: Path) -> None:
    """A `lost<TAB>known` file (no decision column) is sign values: they are pinned on the run, as
    the Key screen's p pins them, each sign's values replacing its old ones; a bad line pins nothing."""
    run_id, _ = run
    good = write(tmp_path / "signs.tsv", "# from a bilingual\nlost\tknown\na\ta\nb\tb\nb\td\n")
    result = cli("review", "import", str(run_id), str(good))
    assert result.exit_code == 0, result.output
    assert "pinned 3 sign value(s) on run #1: a=a, b=b, b=d" in " ".join(result.output.split())
    with Store(default_path(data_dir)) as store:
        assert store.pins(run_id) == [("a", "a"), ("b", "b"), ("b", "d")] and store.judgments(run_id) == {}
    bad = write(tmp_path / "bad.tsv", "lost\tknown\nc\tc\nq\ta\n")
    refused = cli("review", "import", str(run_id), str(bad))
    assert refused.exit_code == 2 and f"{bad}:3: unknown lost symbol 'q'" in " ".join(refused.output.split())
    with Store(default_path(data_dir)) as store:
        assert store.pins(run_id) == [("a", "a"), ("b", "b"), ("b", "d")]  # c was not pinned either
