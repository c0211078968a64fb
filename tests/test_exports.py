"""`decipher export` and `decipher runs` through the CliRunner: a run on a CLDF and on an EDICTOR
dataset, reviewed, exported, and the exports re-read by pycldf (validate) and lingpy (Wordlist,
Alignments) with the expected cognate sets; the key; the errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from formats_support import write_cldf, write_edictor
from tui_support import fixed_corpus, seed_store
from typer.testing import CliRunner

from tui_decipher.cli import app
from tui_decipher.engine.channels.alignment import Segment
from tui_decipher.engine.corpora.formats import read_corpus_file
from tui_decipher.engine.corpora.formats.lingpy_import import quiet_lingpy
from tui_decipher.exports import ReviewedRun
from tui_decipher.exports.alignment import GAP, key_alignment, model_alignment
from tui_decipher.exports.cognate_sets import cognate_sets
from tui_decipher.exports.key import export_key
from tui_decipher.store import ACCEPTED, OPEN, REJECTED, ProposalRow, RunRow, Store, default_path

runner = CliRunner()
QUICK = ["--method", "channel", "--set", "channel_steps=15", "--quiet"]


def cli(*args: str):
    result = runner.invoke(app, list(args))
    return result


def run_and_review(data_dir: Path, corpus: Path, *languages: str) -> tuple[int, Store]:
    """A quick channel run on `corpus`, then a review: the first 4 proposals accepted, the next 2 rejected."""
    result = cli("run", "--corpus", str(corpus), *languages, *QUICK, "--out", str(data_dir.parent / "run"))
    assert result.exit_code == 0, result.output
    store = Store(default_path(data_dir))
    (run,) = store.runs()
    for n, row in enumerate(store.proposals(run.id)[:6]):
        store.set_judgment(run.id, row.lost_index, row.known_index, ACCEPTED if n < 4 else REJECTED)
    return run.id, store


def decided(store: Store, run_id: int, status: str) -> set[tuple[str, str]]:
    """The (lost, known) pairs with a status, as space-separated tokens."""
    return {(" ".join(r.lost_tokens), " ".join(r.known_tokens)) for r in store.proposals(run_id) if r.status == status}


def lingpy_sets(path: Path) -> set[tuple[str, str]]:
    """The cognate sets of an EDICTOR export as (ves tokens, kal tokens) pairs, read by lingpy."""
    with quiet_lingpy() as lingpy:
        wordlist = lingpy.Wordlist(str(path))
        sets = set()
        for members in wordlist.get_etymdict(ref="cogid").values():
            words = {wordlist[m[0], "doculect"]: " ".join(wordlist[m[0], "tokens"]) for m in members if m}
            sets.add((words["ves"], words["kal"]))
        for i in wordlist:  # each ALIGNMENT is its word's TOKENS with gaps
            assert [t for t in wordlist[i, "alignment"] if t != GAP] == list(wordlist[i, "tokens"])
        alignments = lingpy.Alignments(str(path), ref="cogid", transcription="tokens")
        assert set(alignments.msa["cogid"]) == set(wordlist.get_etymdict(ref="cogid"))
        for msa in alignments.msa["cogid"].values():
            assert len({len(row) for row in msa["alignment"]}) == 1  # one width per set
    return sets


@pytest.fixture
def cldf_run(data_dir: Path, tmp_path: Path) -> tuple[int, Store]:
    run_id, store = run_and_review(data_dir, write_cldf(tmp_path / "dataset"), "--lost", "vesh1234", "--known", "kal")
    yield run_id, store
    store.close()


def test_a_cldf_run_exports_to_edictor_that_lingpy_reads_with_the_accepted_sets(cldf_run, tmp_path: Path) -> None:
    run_id, store = cldf_run
    accepted = decided(store, run_id, ACCEPTED)
    assert len(accepted) == 4 and len(decided(store, run_id, REJECTED)) == 2
    result = cli("export", str(run_id), "--format", "edictor", "-o", str(tmp_path / "review.tsv"))
    assert result.exit_code == 0, result.output
    assert f"accepted pair(s) in {len(accepted)} cognate set(s); aligned by: model {len(accepted)}" in result.output
    assert lingpy_sets(tmp_path / "review.tsv") == accepted
    header = (tmp_path / "review.tsv").read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert header == ["ID", "DOCULECT", "CONCEPT", "FORM", "TOKENS", "COGID", "ALIGNMENT", "SCORE", "STATUS",
                      "ALIGNMENT_SOURCE"]  # fmt: skip
    # --all: every proposal, each pair its own set, with its decision.
    result = cli("export", str(run_id), "--format", "edictor", "--all", "-o", str(tmp_path / "all.tsv"))
    assert result.exit_code == 0, result.output
    with quiet_lingpy() as lingpy:
        wordlist = lingpy.Wordlist(str(tmp_path / "all.tsv"))
        status = {wordlist[i, "status"] for i in wordlist}
        n_sets = len(wordlist.get_etymdict(ref="cogid"))
    assert status == {ACCEPTED, REJECTED, OPEN} and n_sets == len(store.proposals(run_id))


def test_a_cldf_run_exports_to_cldf_that_pycldf_validates(cldf_run, tmp_path: Path) -> None:
    from pycldf import Dataset

    run_id, store = cldf_run
    out = tmp_path / "reviewed"
    result = cli("export", str(run_id), "--format", "cldf", "-o", str(out))
    assert result.exit_code == 0, result.output
    ds = Dataset.from_metadata(out / "Wordlist-metadata.json")
    assert ds.validate()
    languages = {r["ID"]: (r["Name"], r["Glottocode"]) for r in ds["LanguageTable"]}
    assert languages == {"ves": ("Old Veshic", "vesh1234"), "kal": ("Kalenic", "kale1234")}
    cognates = list(ds["CognateTable"])
    assert all(r["Alignment"] and r["Alignment_Source"] == "model" and r["Review"] == ACCEPTED for r in cognates)
    forms = {r["ID"]: (r["Language_ID"], " ".join(r["Segments"])) for r in ds["FormTable"]}
    sets: dict[str, dict[str, str]] = {}
    for r in cognates:
        language, tokens = forms[r["Form_ID"]]
        sets.setdefault(r["Cognateset_ID"], {})[language] = tokens
    assert {(s["ves"], s["kal"]) for s in sets.values()} == decided(store, run_id, ACCEPTED)
    # Read back by the project's own CLDF reader: the accepted pairs are its gold.
    back = read_corpus_file(out)
    assert {(" ".join(back.lost_words[i]), " ".join(back.known_words[j])) for i, js in back.gold.items() for j in js} \
        == decided(store, run_id, ACCEPTED)  # fmt: skip
    # Exporting again replaces the earlier export; a folder of something else is refused.
    assert cli("export", str(run_id), "--format", "cldf", "--all", "-o", str(out)).exit_code == 0
    assert {r["Review"] for r in Dataset.from_metadata(out / "Wordlist-metadata.json")["CognateTable"]} == {
        ACCEPTED, REJECTED, OPEN}  # fmt: skip
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine", encoding="utf-8")
    refused = cli("export", str(run_id), "--format", "cldf", "-o", str(tmp_path / "mine"))
    assert refused.exit_code == 2 and "not a CLDF export" in refused.output
    assert (tmp_path / "mine" / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_an_edictor_run_exports_both_ways_by_run_folder(data_dir: Path, tmp_path: Path) -> None:
    run_id, store = run_and_review(data_dir, write_edictor(tmp_path / "words.tsv"), "--lost", "ves", "--known", "kal")
    with store:
        folder = store.run(run_id).run_dir
        accepted = decided(store, run_id, ACCEPTED)
    result = cli("export", folder, "--format", "edictor", "-o", str(tmp_path / "e.tsv"))
    assert result.exit_code == 0, result.output
    assert lingpy_sets(tmp_path / "e.tsv") == accepted
    result = cli("export", folder, "--format", "cldf", "-o", str(tmp_path / "c"))
    assert result.exit_code == 0, result.output
    # Languages as DOCULECTs (no names or Glottocodes in an EDICTOR file); words as their TOKENS.
    segments = [" ".join(r["Segments"]) for r in __import__("pycldf").Dataset.from_metadata(
        tmp_path / "c" / "Wordlist-metadata.json")["FormTable"]]  # fmt: skip
    assert {t for pair in accepted for t in pair} == set(segments)


def test_a_neural_runs_alignments_are_its_attention_paths(data_dir: Path, tmp_path: Path) -> None:
    """The fixed neural run of tui_support stores a diagonal attention grid for each pair: its
    reading is each lost symbol over the known symbol on its row."""
    run_id = seed_store(data_dir, tmp_path)
    with Store(default_path(data_dir)) as store:
        sets = cognate_sets(ReviewedRun.load(store, store.run(run_id)), include_all=True)
    pair = next(s for s in sets if len(s.members) == 2 and len(s.members[0].tokens) == len(s.members[1].tokens))
    assert pair.source == "model" and pair.alignment == [m.tokens for m in pair.members]  # the diagonal


def test_a_reading_aligns_a_sign_over_its_letters_with_gaps() -> None:
    reading = [Segment(("κ",), ("k", "o"), 0.9), Segment((), ("s",), 0.5), Segment(("α",), ("a",), 0.8)]
    assert model_alignment(["κ", "α"], ["k", "o", "s", "a"], reading) == [["κ", GAP, GAP, "α"], ["k", "o", "s", "a"]]
    assert model_alignment(["κ"], ["k", "o"], reading) is None  # a reading of other words


def test_key_alignment_reads_pieces_and_a_set_of_three_is_aligned_by_lingpy(tmp_path: Path) -> None:
    key = {"κ": [("ko", 0.9), ("k", 0.1)], "α": [("a", 0.8)]}
    assert key_alignment(["κ", "α"], ["k", "o", "a"], key) == [["κ", "-", "α"], ["k", "o", "a"]]
    assert key_alignment(["ω"], ["k"], key) is None  # the key reads none of the symbols

    def row(rank: int, lost: str, known: str, known_index: int, status: str = ACCEPTED) -> ProposalRow:
        return ProposalRow(rank, 0 if lost == "abc" else rank, known_index, lost, known, 0.9, 1.0, None, status,
                           lost_tokens=list(lost), known_tokens=list(known))  # fmt: skip

    # abc ~ abd and abc ~ abe accepted: one set of three, lingpy's multiple alignment; a rejected
    # pair on abd stays a set of its own.
    rows = [row(1, "abc", "abd", 0), row(2, "abc", "abe", 1), row(3, "xbd", "abd", 0, REJECTED)]
    reviewed = ReviewedRun(_run_row(), rows)
    accepted, rejected = cognate_sets(reviewed, include_all=True)
    assert [m.text for m in accepted.members] == ["abc", "abd", "abe"] and accepted.source == "msa"
    assert len({len(a) for a in accepted.alignment}) == 1 and accepted.status == ACCEPTED
    assert [m.text for m in rejected.members] == ["xbd", "abd"] and rejected.status == REJECTED
    # Symbols lingpy's sound classes do not know, and no key: the words stand unaligned, padded.
    odd = ReviewedRun(_run_row(), [row(1, "☉☽", "☿", 0)])
    (cset,) = cognate_sets(odd, include_all=False)
    assert cset.source == "none" and cset.alignment == [["☉", "☽"], ["☿", GAP]]


def _run_row() -> RunRow:
    return RunRow(1, 0.0, "finished", "c", None, "ves", "kal", False, None, None, None, None, None, "c.cog", {}, {},
                  None, None, None, None, None, None)  # fmt: skip


def test_key_export_by_symbol_and_by_confidence(data_dir: Path, tmp_path: Path) -> None:
    run_id = seed_store(data_dir, tmp_path)
    result = cli("export", str(run_id), "--format", "key", "-o", "-")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "lost\tconfidence\treading1\tp1\treading2\tp2"
    assert [line.split("\t")[0] for line in lines[1:]] == ["γ", "λ", "σ"]
    assert lines[1] == "γ\t0.9000\tn\t0.9000\ts\t0.0500"
    char_map = {"γ": [("n", 0.9)], "λ": [("s", 0.8)], "σ": [("l", 0.95)]}
    assert [line.split("\t")[0] for line in export_key(char_map, by_confidence=True).splitlines()[1:]] == [
        "σ", "γ", "λ"]  # fmt: skip
    written = cli("export", str(run_id), "--format", "key", "-o", str(tmp_path / "key.tsv"))
    assert written.exit_code == 0 and "3 lost symbol(s)" in written.output


def test_signs_export_is_a_known_signs_file_that_a_run_reads_back(data_dir: Path, tmp_path: Path) -> None:
    """The pins of a run (the Key screen's) as a --known-signs file: values a line, unknown signs as
    comments; the project's reader takes it back as the same values."""
    from tui_decipher.engine.constraints.sign_values import read_sign_values

    run_id = seed_store(data_dir, tmp_path)
    with Store(default_path(data_dir)) as store:
        store.set_pins(run_id, "γ", ["n", "s"])
        store.set_pins(run_id, "λ", ["?"])
        store.set_pins(run_id, "σ", ["l"])
    shown = cli("runs", "show", str(run_id))
    assert shown.exit_code == 0 and "γ=n, γ=s, λ=?, σ=l" in " ".join(shown.output.split())
    result = cli("export", str(run_id), "--format", "signs", "-o", str(tmp_path / "signs.tsv"))
    assert result.exit_code == 0 and "3 pinned sign value(s), 1 marked unknown" in result.output
    text = (tmp_path / "signs.tsv").read_text(encoding="utf-8")
    assert text == "lost\tknown\nγ\tn\nγ\ts\nσ\tl\n# λ\tunknown\n"
    back = read_sign_values(tmp_path / "signs.tsv", fixed_corpus(tmp_path))
    assert [(v.lost, v.known) for v in back.values] == [("γ", ("n",)), ("γ", ("s",)), ("σ", ("l",))]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--format", "cog", "--all"], "--all: the cog format has no place for a decision"),
        (["--format", "cldf", "-o", "-"], "the cldf export is a folder"),
        (["--format", "xml"], "--format 'xml': expected one of tsv, cog, edictor, cldf, key, signs"),
    ],
)
def test_export_errors_are_one_line(data_dir: Path, tmp_path: Path, args: list[str], fragment: str) -> None:
    run_id = seed_store(data_dir, tmp_path)
    result = cli("export", str(run_id), *args)
    assert result.exit_code == 2 and fragment in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_export_default_path_and_unknown_runs(data_dir: Path, tmp_path: Path, monkeypatch) -> None:
    run_id = seed_store(data_dir, tmp_path)
    monkeypatch.chdir(tmp_path)
    result = cli("export", str(run_id))
    assert result.exit_code == 0 and (tmp_path / f"run-{run_id}-fixed-accepted.tsv").is_file()
    missing = cli("export", "99")
    assert missing.exit_code == 2 and "no run #99" in missing.output
    folder = cli("export", str(tmp_path))
    assert folder.exit_code == 2 and "not a run in" in folder.output


def test_an_export_with_nothing_accepted_warns_and_names_all(data_dir: Path, tmp_path: Path) -> None:
    run_id = seed_store(data_dir, tmp_path)
    empty = cli("export", str(run_id), "-o", str(tmp_path / "none.tsv"))
    assert empty.exit_code == 0 and "no accepted pair yet" in empty.output and "--all" in empty.output
    assert (tmp_path / "none.tsv").read_text(encoding="utf-8").count("\n") == 1  # the header alone
    to_stdout = cli("export", str(run_id), "-o", "-")
    assert "no accepted pair yet" in to_stdout.output
    every = cli("export", str(run_id), "--all", "-o", str(tmp_path / "all.tsv"))
    key = cli("export", str(run_id), "--format", "key", "-o", str(tmp_path / "key.tsv"))
    assert "no accepted pair" not in every.output + key.output  # every proposal, or no pairs at all
    with Store(default_path(data_dir)) as store:
        row = store.proposals(run_id)[0]
        store.set_judgment(run_id, row.lost_index, row.known_index, ACCEPTED)
    one = cli("export", str(run_id), "-o", str(tmp_path / "one.tsv"))
    assert one.exit_code == 0 and "no accepted pair" not in one.output and "1 accepted pair(s)" in one.output


# ------------------------------------------------------------------------------------ runs


def test_runs_list_show_and_delete(data_dir: Path, tmp_path: Path) -> None:
    run_id = seed_store(data_dir, tmp_path)
    listed = cli("runs", "list")
    assert listed.exit_code == 0, listed.output
    assert "fixed" in listed.output and "75.0%" in listed.output and "finished" in listed.output
    shown = cli("runs", "show", str(run_id))
    assert shown.exit_code == 0, shown.output
    review = "0 accepted, 0 rejected, 0 unsure, 8 open"
    protocol, users = "75.0% (flow), 62.5% (model) on the 8 words", "F1 62.5 (8 proposals"
    for fragment in ("fixed (ves -> kal)", protocol, users, review):
        assert fragment in shown.output, shown.output
    kept = runner.invoke(app, ["runs", "delete", str(run_id)], input="n\n")
    assert kept.exit_code == 1 and "kept" in kept.output
    deleted = runner.invoke(app, ["runs", "delete", str(run_id)], input="y\n")
    assert deleted.exit_code == 0 and f"deleted run #{run_id}" in deleted.output
    assert "No runs yet" in cli("runs", "list").output
    assert cli("runs", "delete", str(run_id), "--yes").exit_code == 2


def test_runs_show_by_folder_names_the_languages(cldf_run) -> None:
    run_id, store = cldf_run
    folder = store.run(run_id).run_dir
    shown = runner.invoke(app, ["runs", "show", folder], env={"COLUMNS": "160"})
    assert shown.exit_code == 0, shown.output
    assert "ves (Old Veshic, vesh1234) -> kal (Kalenic, kale1234)" in shown.output
    assert "4 accepted, 2 rejected" in shown.output
