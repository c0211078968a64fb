"""`decipher-tui` driven by keyboard through Textual's Pilot: runs, cancel, review, export, form, help."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from rich.text import Text
from textual import events
from textual.widgets import DataTable, Input, ProgressBar, RadioButton, RichLog, Select, Sparkline, Static
from tui_support import SYLLABLE_READINGS, seed_store, store_readings
from typer.testing import CliRunner

from tui_decipher.cli import app as cli_app
from tui_decipher.engine.constraints.review import REFINE_ROUNDS
from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
from tui_decipher.engine.run import config as engine_config
from tui_decipher.engine.run.checkpoint import CHECKPOINT_NAME
from tui_decipher.engine.run.config import build_config
from tui_decipher.engine.run.device import screen_threads
from tui_decipher.engine.run.events import ChannelStep, RunFinished, RunStarted
from tui_decipher.exports.base import ReviewedRun
from tui_decipher.session.wording import event_line
from tui_decipher.store import ACCEPTED, OPEN, REJECTED, UNSURE, Store, default_path
from tui_decipher.tui.app import DecipherApp, Refinement, proposal_map
from tui_decipher.tui.live import LiveRun
from tui_decipher.tui.screens.help import HelpScreen
from tui_decipher.tui.screens.new_run import NO_PRESET, NewRunScreen
from tui_decipher.tui.screens.pin import PinScreen
from tui_decipher.tui.screens.refine import RefineScreen
from tui_decipher.tui.screens.review import ReviewScreen

SIZE = (100, 32)


async def wait_until(pilot, condition, timeout: float = 600.0) -> None:
    """Let the app run until condition() holds (the engine trains in a thread meanwhile).

    The timeout only catches a hang: on a busy 2-core CI machine a tiny run can take minutes.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.05)


async def set_field(pilot, selector: str, text: str) -> None:
    """Focus a form field and retype it by keyboard."""
    pilot.app.screen.query_one(selector, Input).focus()
    await pilot.press("end", "ctrl+u", *list(text))


async def paste_field(pilot, selector: str, text: str) -> None:
    """Focus a form field, clear it by keyboard and paste `text` (a path), as a terminal delivers a
    paste: one event, where typing a long temporary path key by key costs seconds."""
    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    await pilot.press("end", "ctrl+u")
    field.post_message(events.Paste(text))
    await pilot.pause()


async def open_new_run_form(pilot) -> NewRunScreen:
    """Press n on the runs screen and wait for the form."""
    await pilot.press("n")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, NewRunScreen))
    return pilot.app.screen


async def choose_preset(pilot, screen: NewRunScreen, name: str) -> None:
    """Pick a preset on the form (its fields follow it)."""
    screen.query_one("#preset", Select).value = name
    await pilot.pause()


def dialog_text(screen) -> str:
    """Everything a modal dialog says (its Static lines)."""
    return " ".join(str(static.render()) for static in screen.query(Static))


async def start_tiny_run(pilot, epochs: str = "4", rounds: str = "2") -> None:
    """A tiny run of the paper's neural EM on the demo corpus (the demo preset, shrunk)."""
    screen = await open_new_run_form(pilot)
    await choose_preset(pilot, screen, "demo")
    for selector, text in (
        ("#field-rounds", rounds), ("#field-epochs", epochs), ("#field-embed_dim", "16"),
        ("#field-hidden_dim", "16"), ("#field-n_universal", "8"),
    ):  # fmt: skip
        await set_field(pilot, selector, text)
    await pilot.press("ctrl+s")


@pytest.mark.slow
async def test_tiny_demo_run_streams_progress_and_finishes(data_dir, single_thread):
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await start_tiny_run(pilot)
        await wait_until(pilot, lambda: app.live is not None and app.live.status == "finished")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.current_mode == "progress"
        live = app.live
        assert len(live.losses) == 2 * 4  # every epoch's loss reached the UI
        assert [e.round for e in live.round_ends] == [1, 2]
        assert any(line.startswith("finished in") for line in live.log)
        assert app.screen.query_one("#rounds-table", DataTable).row_count == 2
        log_text = "\n".join(str(line) for line in app.screen.query_one("#log", RichLog).lines)
        assert "round 2/2" in log_text
        with Store(default_path(data_dir)) as store:
            run = store.run(live.run_id)
            assert run.status == "finished" and run.accuracy is not None
            assert store.proposals(run.id) and store.char_map(run.id)
            assert len(store.epoch_losses(run.id)) == 8
        assert (data_dir / "runs").is_dir() and any((data_dir / "runs").iterdir())


@pytest.mark.slow
async def test_cancel_stops_the_run_and_keeps_completed_rounds(data_dir, single_thread):
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await start_tiny_run(pilot, epochs="3000", rounds="3")
        await wait_until(pilot, lambda: app.live is not None and len(app.live.losses) >= 3)
        await pilot.press("c")
        assert app.live.status in ("cancelling", "cancelled")
        await wait_until(pilot, lambda: app.live.status == "cancelled")
        await app.workers.wait_for_complete()
        assert len(app.live.losses) < 3000  # stopped within the first M-step
        with Store(default_path(data_dir)) as store:
            assert store.run(app.live.run_id).status == "cancelled"


@pytest.mark.slow
async def test_quit_during_a_run_cancels_it_and_exits(data_dir, single_thread):
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await start_tiny_run(pilot, epochs="3000", rounds="3")
        await wait_until(pilot, lambda: app.live is not None and len(app.live.losses) >= 2)
        run_id = app.live.run_id
        await pilot.press("q")
    # run_test returned: the app exited; the engine thread saw the cancel and recorded the run.
    with Store(default_path(data_dir)) as store:
        assert store.run(run_id).status == "cancelled"


async def test_review_keys_write_decisions_to_the_store(data_dir, tmp_path):
    run_id = seed_store(data_dir, tmp_path)
    app = DecipherApp(data_dir)
    db = default_path(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        assert isinstance(app.screen, ReviewScreen)
        screen = app.screen
        rows = {r.rank: r for r in app.store.proposals(run_id)}
        await pilot.press("a")  # rank 1 accepted, cursor moves to rank 2
        await pilot.press("r")  # rank 2 rejected
        with Store(db) as other:  # committed at the keypress, visible to another connection
            decided = other.judgments(run_id)
        assert decided[(rows[1].lost_index, rows[1].known_index)] == ACCEPTED
        assert decided[(rows[2].lost_index, rows[2].known_index)] == REJECTED
        await pilot.press("u")  # undo the reject
        assert (rows[2].lost_index, rows[2].known_index) not in app.store.judgments(run_id)
        assert screen._current_rank() == 2  # undo returns to the pair it changed
        await pilot.press("down", "space")  # rank 3: open -> accepted
        await pilot.press("space")  # accepted -> rejected
        assert app.store.judgments(run_id)[(rows[3].lost_index, rows[3].known_index)] == REJECTED
        counts_text = str(screen.query_one("#review-counts").render())
        assert "1 accepted" in counts_text and "1 rejected" in counts_text
        # n / N: next and previous unreviewed pair (ranks 1 and 3 are judged).
        screen.query_one("#pairs", DataTable).move_cursor(row=0)
        await pilot.press("n")
        assert screen._current_rank() == 2
        await pilot.press("n")
        assert screen._current_rank() == 4
        await pilot.press("N")
        assert screen._current_rank() == 2
        # / filters by text; f cycles the status filter.
        await pilot.press("slash", *list("sand"))
        assert screen.shown_ranks == [r.rank for r in rows.values() if "sand" in r.known or "sand" in r.lost]
        await pilot.press("enter", "escape")
        await pilot.press("/", "end", "ctrl+u", "enter")
        assert len(screen.shown_ranks) == len(rows)
        await pilot.press("f", "f")  # all -> open -> accepted
        assert screen.status_filter == ACCEPTED
        assert screen.shown_ranks == [1]
    # Reopen: the decisions were kept.
    app2 = DecipherApp(data_dir)
    async with app2.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        statuses = {r.rank: r.status for r in app2.store.proposals(run_id)}
        assert statuses[1] == ACCEPTED and statuses[3] == REJECTED and statuses[2] == "open"


async def test_pairs_beyond_d_follow_the_proposals_dimmed_are_judged_as_any_and_counted_apart(data_dir, tmp_path):
    run_id = seed_store(data_dir, tmp_path, beyond=2)  # 6 proposals, then 2 pairs past D
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert [r.beyond for r in screen.rows] == [False] * 6 + [True] * 2 and screen.shown_ranks == list(range(1, 9))
        table = screen.query_one("#pairs", DataTable)
        rank = table.get_row("7")[0]  # the first pair past D: its rank, words and score dimmed
        assert isinstance(rank, Text) and rank.plain == "7" and "dim" in str(rank.style)
        assert table.get_row("6")[0] == "6"  # a proposal's rank as before
        counts = str(screen.query_one("#review-counts").render())
        assert "6 open" in counts and "+2 past D  |" in counts
        await pilot.press("b")  # to the first pair past D, and back
        assert screen._current_rank() == 7
        await pilot.press("b")
        assert screen._current_rank() == 1
        await pilot.press("b")
        title = str(screen.query_one("#pair-title").render())
        assert "+1 past D" in title and "not proposed" in title
        await pilot.press("a")  # judged as any pair: committed, counted apart from the proposals
        pair = (screen.by_rank[7].lost_index, screen.by_rank[7].known_index)
        assert app.store.judgments(run_id)[pair] == ACCEPTED
        counts = str(screen.query_one("#review-counts").render())
        assert "0 accepted" in counts and "6 open" in counts and "+2 past D (1 judged)" in counts
        assert "not proposed now" not in counts
        # After a refinement Δ marks the proposals it changed, never a pair past D (none was proposed).
        app.refined[run_id] = Refinement(run_id, proposal_map(app.store.proposals(run_id)[1:]))
        screen.load()
        assert screen.changed == {1}
    # The exports carry every proposal and the judged pair past D, not the unjudged one.
    with Store(default_path(data_dir)) as store:
        exported = ReviewedRun.load(store, store.run(run_id)).rows
    assert [r.rank for r in exported] == [*range(1, 7), 7] and exported[-1].status == ACCEPTED


async def test_judgments_on_review_settle_d_and_move_the_cut_at_once(data_dir, tmp_path):
    run_id = seed_store(data_dir, tmp_path, beyond=2)  # 6 proposals, then 2 pairs past D
    with Store(default_path(data_dir)) as store:  # D read from evidence, as auto's is: 6, allowing 2-8
        decisions = {"demand": {"demand": 6, "demand_low": 2, "demand_high": 8}}
        store.conn.execute("UPDATE runs SET decisions_json = ? WHERE id = ?", (json.dumps(decisions), run_id))
        store.conn.commit()
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "b")  # the first pair past D
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen._current_rank() == 7 and screen.n_proposed == 6
        await pilot.press("a", "a")  # both pairs past D are right: the correct pairs end past D
        assert screen.n_proposed > 6 and not screen.by_rank[7].beyond
        assert [r.status for r in screen.rows[6:]] == [ACCEPTED, ACCEPTED]
        counts = str(screen.query_one("#review-counts").render())
        assert f"D 6 -> {screen.n_proposed}" in counts and "(2 judged)" in counts
        assert len(app.store.proposals(run_id)) == screen.n_proposed  # the store's cut, the screen's
        await pilot.press("u", "u")  # undone: no judgment, the run's own D again
        assert screen.n_proposed == 6 and len(app.store.proposals(run_id)) == 6
        await pilot.press("B")  # the boundary queue: the open pairs across the range 2-8
        assert screen.queue == [2, 3, 4, 5, 6, 7, 8] and screen.shown_ranks == screen.queue
        await pilot.press("a")  # judged in the queue: it stays there, counted
        assert screen.shown_ranks == [2, 3, 4, 5, 6, 7, 8]
        assert "boundary queue: 1 of 7 judged" in str(screen.query_one("#review-counts").render())
        await pilot.press("B")  # every pair again
        assert screen.queue is None and screen.shown_ranks == list(range(1, 9))


async def test_progress_logs_lines_no_wider_than_an_80_column_screen_shows(data_dir, tmp_path):
    """A stored auto run's decision line (several hundred characters) wraps within the log at 80x24:
    no wrapped line is cut by the screen's edge or the scrollbar."""
    run_id = seed_store(data_dir, tmp_path)
    line = "auto: pieces channel (two scripts); " + "D = 195 of 400, the evidence allows 20-376; " * 12
    with Store(default_path(data_dir)) as store:
        store.conn.execute("UPDATE runs SET decisions_json = ? WHERE id = ?", (json.dumps({"line": line}), run_id))
    app = DecipherApp(data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("2")
        await pilot.pause()
        log = app.screen.query_one("#log", RichLog)
        width = log.scrollable_content_region.width
        assert len(log.lines) > 5 and max(strip.cell_length for strip in log.lines) <= width < 80
        assert "20-376;" in "".join(strip.text for strip in log.lines)


async def test_a_long_review_counts_line_wraps_at_80_columns(data_dir, tmp_path):
    """The counts line under Review's table wraps to a second line where its text is long (here a
    filter that matches nothing), instead of losing its end past the screen's edge."""
    seed_store(data_dir, tmp_path, beyond=2)
    app = DecipherApp(data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3", "slash", *list("no word holds this text"), "enter")
        await pilot.pause()
        counts = app.screen.query_one("#review-counts", Static)
        assert "showing 0/8" in str(counts.render()) and counts.size.height == 2


def test_a_finished_runs_log_line_counts_its_proposals_and_the_pairs_past_d():
    line = event_line(RunFinished("finished", 0.5, 0.4, 3.0, 195, 171), rounds=False)
    assert line == (
        "finished in 3.0s, accuracy 50.0%; 195 pairs proposed (and 171 past D the evidence allows: Review, b)"
    )
    assert event_line(RunFinished("finished", None, None, 3.0, 8), rounds=True) == "finished in 3.0s; 8 pairs proposed"
    assert event_line(RunFinished("cancelled", None, None, 3.0), rounds=True) == "cancelled in 3.0s"


async def test_export_dialog_writes_each_format(data_dir, tmp_path, monkeypatch):
    """e on Review opens the export dialog: tsv by default, then the .cog, EDICTOR and CLDF formats."""
    from textual.widgets import Checkbox

    run_id = seed_store(data_dir, tmp_path)
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    app = DecipherApp(data_dir)

    async def export(pilot, fmt: str, target, every: bool = False) -> None:
        await pilot.press("e")
        await wait_until(pilot, lambda: pilot.app.screen.query("#export-path"))
        if fmt != "tsv":
            pilot.app.screen.query_one("#export-format", Select).value = fmt
            await pilot.pause()
        if every:
            pilot.app.screen.query_one("#export-all", Checkbox).value = True
            await pilot.pause()
        await paste_field(pilot, "#export-path", str(target))
        await pilot.press("enter")
        await pilot.pause()

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "a", "a", "r")
        await pilot.press("e")
        await pilot.pause()
        default = pilot.app.screen.query_one("#export-path", Input).value
        # The current folder, as `decipher export` writes by default: one default for both front ends.
        assert default == str(tmp_path / "here" / f"run-{run_id}-fixed-accepted.tsv")
        pilot.app.screen.query_one("#export-format", Select).value = "cldf"
        await pilot.pause()
        assert pilot.app.screen.query_one("#export-path", Input).value.endswith(f"run-{run_id}-fixed-accepted-cldf")
        await pilot.press("escape")
        await export(pilot, "tsv", tmp_path / "out" / "mine.tsv")
        await export(pilot, "cog", tmp_path / "out" / "mine.cog")
        await export(pilot, "edictor", tmp_path / "out" / "mine-edictor.tsv", every=True)
        await export(pilot, "cldf", tmp_path / "out" / "cldf")
    rows = Store(default_path(data_dir)).proposals(run_id)
    accepted = [r for r in rows if r.status == ACCEPTED]
    assert len(accepted) == 2
    tsv = (tmp_path / "out" / "mine.tsv").read_text(encoding="utf-8").splitlines()
    assert tsv[0] == "lost\tknown\tscore\tstatus\talignment"
    assert [line.split("\t")[:2] for line in tsv[1:]] == [[r.lost, r.known] for r in accepted]
    cog = (tmp_path / "out" / "mine.cog").read_text(encoding="utf-8").splitlines()
    assert cog[0] == "ves\tkal"
    assert cog[1:] == [f"{r.lost}\t{r.known}" for r in accepted]
    edictor = (tmp_path / "out" / "mine-edictor.tsv").read_text(encoding="utf-8").splitlines()
    # Every pair; the two accepted ones share their known word, so they are one set of three words.
    assert accepted[0].known == accepted[1].known and len(edictor) == 1 + 3 + 2 * (len(rows) - 2)
    assert sum(line.endswith("\tmodel") for line in edictor) == 2 * (len(rows) - 2)  # the pairs: their reading
    assert (tmp_path / "out" / "cldf" / "Wordlist-metadata.json").is_file()


async def test_invalid_form_values_are_marked_and_refused(data_dir):
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run_form(pilot)
        await set_field(pilot, "#field-epochs", "abc")
        await set_field(pilot, "#field-flow_decay", "1.5")
        assert screen.query_one("#field-epochs", Input).has_class("-invalid")
        assert screen.query_one("#field-flow_decay", Input).has_class("-invalid")
        assert "flow_decay = 1.5 is out of range (allowed 0.0..1.0)" in str(screen.query_one("#form-error").render())
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.live is None  # nothing started
        assert isinstance(app.screen, NewRunScreen)
        assert app.screen.focused is screen.query_one("#field-epochs", Input)  # the first bad field
        assert app.store.runs() == []
        await set_field(pilot, "#field-epochs", "5")
        assert not screen.query_one("#field-epochs", Input).has_class("-invalid")


async def test_bad_corpus_path_is_reported_and_nothing_is_stored(data_dir, tmp_path):
    bad = tmp_path / "bad.cog"
    bad.write_text("aa\tbb\nxy\tzw\nab\tcd\tef\n", encoding="utf-8")
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_new_run_form(pilot)
        await paste_field(pilot, "#corpus-path", str(bad))
        await app.workers.wait_for_complete()
        await pilot.pause()
        preview = str(app.screen.query_one("#corpus-preview").render())
        assert f"{bad}:3:" in preview and "3 column(s)" in preview
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.live is None
        # The form refuses to start and stays open with the path as typed, the reason beside it.
        assert isinstance(app.screen, NewRunScreen) and app.screen.corpus_value() == str(bad)
        assert app.screen.focused is app.screen.query_one("#corpus-path")
        assert f"{bad}:3:" in str(app.screen.query_one("#form-error").render())
        assert app.store.runs() == []
        # Mended, it starts.
        bad.write_text("aa\tbb\nxy\tzw\nab\tcd\n", encoding="utf-8")
        assert app.screen._corpus_refusal() is None  # the old preview was for the bad file: read again


async def test_a_bad_known_signs_file_on_the_form_is_refused_with_its_line(data_dir, tmp_path):
    signs = tmp_path / "signs.tsv"
    signs.write_text("lost\tknown\nnot-a-sign\tka\n", encoding="utf-8")
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run_form(pilot)
        await paste_field(pilot, "#known-signs", str(signs))
        assert screen.overrides()["known_signs"] == str(signs)  # the field maps to config known_signs
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.live is None and app.store.runs() == []
        shown = " ".join(str(n.message) for n in app._notifications)
        assert f"{signs}:2: 'not-a-sign' is 10 symbols" in shown


@pytest.mark.parametrize(("syllables", "refits"), [({"used": False}, True), ({"used": True}, True), (None, False)])
async def test_the_refine_dialog_says_where_pinned_values_fit_the_run_again(data_dir, tmp_path, syllables, refits):
    """Where auto searched the run's signs as syllables (a map found or not), a pinned value new to
    the run fits it again: the dialog says so, and how long the run took; elsewhere (an alphabet) it
    says what a round is."""
    import json

    run_id = seed_store(data_dir, tmp_path)
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / CHECKPOINT_NAME).write_bytes(b"")
    decisions = {"line": "auto: ..."} | ({"syllables": syllables} if syllables else {})
    with Store(default_path(data_dir)) as store:
        store.set_run_dir(run_id, str(folder))
        store.conn.execute("UPDATE runs SET decisions_json = ? WHERE id = ?", (json.dumps(decisions), run_id))
        sign = next(iter(store.char_map(run_id)))
        store.set_pins(run_id, sign, ["ka"])
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "R")
        assert isinstance(app.screen, RefineScreen)
        text = dialog_text(app.screen)
        assert "1 pinned sign value(s) held" in text
        assert ("a pinned value new to this run fits it again" in text) is refits
        assert ("50 channel steps" in text) is not refits
        # A refit runs no rounds: their field is out of sight and enter starts from the button.
        assert app.screen.query_one("#refine-rounds-row").display is not refits
        if refits:
            started: list[tuple[int, int, object, bool]] = []
            app.refine_run = lambda run, run_dir, rounds, out, refits=False: started.append(
                (run, rounds, out, refits)
            ) or True  # fmt: skip
            await pilot.press("enter")  # the default: a branch beside the run, fitted again there
            await pilot.pause()
            branch = tmp_path / "run-branch-1"
            assert not isinstance(app.screen, RefineScreen) and started == [(run_id, REFINE_ROUNDS, branch, True)]


async def test_the_refine_dialog_counts_pins_the_run_already_holds_as_no_refit(data_dir, tmp_path, monkeypatch):
    """A pin the run's checkpoint already holds (a refit under it ran) brings nothing new: the dialog
    asks for rounds to train on, as it does for review decisions alone."""
    import json
    import types

    from tui_decipher.session import run_session

    run_id = seed_store(data_dir, tmp_path)
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / CHECKPOINT_NAME).write_bytes(b"")
    with Store(default_path(data_dir)) as store:
        store.set_run_dir(run_id, str(folder))
        decisions = {"line": "auto: ...", "syllables": {"used": True}}
        store.conn.execute("UPDATE runs SET decisions_json = ? WHERE id = ?", (json.dumps(decisions), run_id))
        sign = next(iter(store.char_map(run_id)))
        store.set_pins(run_id, sign, ["ka"])
    run_signs = types.SimpleNamespace(state={"sign_values": [[sign, ["k", "a"], 1]]})
    monkeypatch.setattr(run_session, "load_checkpoint", lambda path: run_signs)
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "R")
        assert isinstance(app.screen, RefineScreen)
        text = dialog_text(app.screen)
        assert "1 pinned sign value(s) held" in text and "50 channel steps" in text
        assert "fits it again" not in text and app.screen.query_one("#refine-rounds-row").display


async def test_the_unsure_key_marks_a_pair_unsure_in_the_store(data_dir, tmp_path):
    """m marks a pair unsure (kept, counted, filtered, undone like the others); space cycles through
    it; while only unsure pairs are judged the refine dialog says it would simply train on."""
    run_id = seed_store(data_dir, tmp_path)
    folder = tmp_path / "run"  # a run folder with a checkpoint, so only the decisions can refuse R
    folder.mkdir()
    (folder / CHECKPOINT_NAME).write_bytes(b"")
    with Store(default_path(data_dir)) as store:
        store.set_run_dir(run_id, str(folder))
    app = DecipherApp(data_dir)
    refined: list[int] = []
    app.refine_run = lambda run, run_dir, rounds, out, refits=False: refined.append(run) or True
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        screen = app.screen
        rows = {r.rank: r for r in app.store.proposals(run_id)}
        pair = {rank: (r.lost_index, r.known_index) for rank, r in rows.items()}
        await pilot.press("m")  # rank 1 unsure, cursor moves to rank 2
        with Store(default_path(data_dir)) as other:  # committed at the keypress
            assert other.judgments(run_id) == {pair[1]: UNSURE}
            assert other.review_counts(run_id)[UNSURE] == 1
        assert screen._current_rank() == 2 and screen.by_rank[1].status == UNSURE
        assert "1 unsure" in str(screen.query_one("#review-counts").render())
        await pilot.press("R")  # nothing accepted or rejected: the dialog says so (a control)
        assert isinstance(app.screen, RefineScreen) and "simply trains on" in dialog_text(app.screen)
        await pilot.press("escape")
        assert app.screen is screen and refined == []
        await pilot.press("u")
        assert app.store.judgments(run_id) == {}
        await pilot.press("space", "space", "space")  # rank 1: open -> accepted -> rejected -> unsure
        assert app.store.judgments(run_id) == {pair[1]: UNSURE}
        await pilot.press("down", "m")
        await pilot.press("f", "f", "f", "f")  # all -> open -> accepted -> rejected -> unsure
        assert screen.status_filter == UNSURE and screen.shown_ranks == [1, 2]
        screen.query_one("#pairs", DataTable).move_cursor(row=0)
        await pilot.press("space")  # rank 1: unsure -> open
        assert app.store.judgments(run_id) == {pair[2]: UNSURE} and screen.by_rank[1].status == OPEN
        await pilot.press("f", "a")  # all shown again; rank 1 accepted: the dialog counts it
        await pilot.press("R")
        assert "1 accepted pair(s) fixed" in dialog_text(app.screen)
        await pilot.press("enter")
        assert refined == [run_id]


async def test_the_refine_dialog_asks_rounds_and_where(data_dir, tmp_path):
    """R opens the dialog: rounds checked (1..1000, default REFINE_ROUNDS), in place or a branch into
    a new folder beside the run's (prefilled); escape cancels, enter starts what it says."""
    run_id = seed_store(data_dir, tmp_path)
    folder = tmp_path / "runs" / "20260921-141300-fixed-demo"
    folder.mkdir(parents=True)
    (folder / CHECKPOINT_NAME).write_bytes(b"")  # refine_run is stubbed: only its presence counts
    (folder.with_name(f"{folder.name}-branch-1")).mkdir()  # taken: the dialog offers -branch-2
    with Store(default_path(data_dir)) as store:
        store.set_run_dir(run_id, str(folder))
    app = DecipherApp(data_dir)
    refined: list[tuple] = []
    app.refine_run = lambda run, run_dir, rounds, out, refits=False: refined.append((run, rounds, out)) or True
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "a", "a", "r")
        review = app.screen
        await pilot.press("R")
        dialog = app.screen
        assert isinstance(dialog, RefineScreen)
        assert "2 accepted pair(s) fixed and 1 rejected pair(s) removed" in dialog_text(dialog)
        assert dialog.query_one("#refine-rounds", Input).value == str(REFINE_ROUNDS)
        out = dialog.query_one("#refine-out", Input)
        offered = folder.with_name(f"{folder.name}-branch-2")
        # A branch by default (enter never replaces the run's proposals), its mark on the choice alone.
        assert dialog.query_one("#refine-branch", RadioButton).value and not out.disabled and out.value == str(offered)
        marks = {b.id: "●" in str(b.render()) for b in dialog.query(RadioButton)}
        assert marks == {"refine-in-place": False, "refine-branch": True}
        await pilot.press("escape")
        assert app.screen is review and refined == []

        await pilot.press("R")
        dialog = app.screen
        out = dialog.query_one("#refine-out", Input)
        await pilot.press("end", "ctrl+u", "0", "enter")  # out of range: refused, the dialog stays
        assert app.screen is dialog and refined == []
        await pilot.press("ctrl+u", "2", "tab")  # 2 rounds; to the in place / branch choice
        assert app.screen.focused is dialog.query_one("#refine-where")
        await pilot.press("tab")  # the branch's folder field
        assert app.screen.focused is out
        taken = str(folder.with_name(f"{folder.name}-branch-1"))
        (folder.with_name(f"{folder.name}-branch-1") / "x").write_text("")  # not empty: refused
        await paste_field(pilot, "#refine-out", taken)
        await pilot.press("enter")
        assert app.screen is dialog and refined == []
        await paste_field(pilot, "#refine-out", str(tmp_path / "mine"))
        await pilot.press("enter")
        assert app.screen is review
        assert refined == [(run_id, 2, tmp_path / "mine")]

        await pilot.press("R", "ctrl+s")  # ctrl+s starts from anywhere in the dialog: the default, a branch
        assert refined[-1] == (run_id, REFINE_ROUNDS, offered)
        await pilot.press("R", "tab", "down", "enter")  # in place, chosen: no folder asked for
        await pilot.pause()
        dialog = app.screen
        assert dialog.query_one("#refine-in-place", RadioButton).value and dialog.query_one("#refine-out").disabled
        await pilot.press("ctrl+s")
        assert refined[-1] == (run_id, REFINE_ROUNDS, None)
        await pilot.press("R", "tab", "question_mark")  # off the rounds field (? is typed there): the help
        assert isinstance(app.screen, HelpScreen)
        table = app.screen._table()
        assert table.title == "Keys: Refine"
        assert {"refine.go", "refine.cancel"} <= set(table.columns[2]._cells)


async def test_help_lists_the_bindings_of_the_current_screen(data_dir, tmp_path):
    seed_store(data_dir, tmp_path)
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        table = app.screen._table()
        ids = table.columns[2]._cells
        for ident in (
            "review.accept",
            "review.reject",
            "review.unsure",
            "review.undo",
            "review.next",
            "review.export",
            "app.quit",
        ):
            assert ident in ids
        await pilot.press("escape")
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("1", "question_mark")
        assert "runs.new" in app.screen._table().columns[2]._cells


async def test_runs_screen_lists_a_cli_run_and_deletes_with_confirmation(data_dir, single_thread):
    result = CliRunner().invoke(
        cli_app,
        ["run", "--quiet", "--preset", "demo", "--epochs", "2", "--rounds", "1", "--data-dir", str(data_dir),
         "--set", "embed_dim=16", "--set", "hidden_dim=16", "--set", "n_universal=8"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one("#runs-table", DataTable)
        assert table.row_count == 1
        assert [str(c) for c in table.get_row_at(0)][2:5] == ["demo", "demo", "finished"]  # corpus, preset
        await pilot.press("d", "n")  # asked, answered no
        assert len(app.store.runs()) == 1
        await pilot.press("d", "y")
        await pilot.pause()
        assert app.store.runs() == []
        assert table.row_count == 0


async def test_keymap_file_remaps_a_binding_by_id(data_dir, tmp_path):
    run_id = seed_store(data_dir, tmp_path)
    (data_dir / "keymap.toml").write_text('[keymap]\n"review.accept" = "y"\n', encoding="utf-8")
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "a")  # no longer bound
        assert app.store.judgments(run_id) == {}
        await pilot.press("y")
        first = app.store.proposals(run_id)[0]
        assert app.store.judgments(run_id) == {(first.lost_index, first.known_index): ACCEPTED}


@pytest.mark.slow
async def test_resume_continues_a_cancelled_run_to_the_end(data_dir, single_thread):
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await start_tiny_run(pilot, epochs="30", rounds="3")
        await wait_until(pilot, lambda: app.live is not None and len(app.live.round_ends) >= 1)
        await pilot.press("c")
        await wait_until(pilot, lambda: app.live.status == "cancelled")
        await app.workers.wait_for_complete()
        run_id = app.live.run_id
        done_rounds = [r.round for r in app.store.rounds(run_id)]
        assert 1 <= len(done_rounds) < 3
        await pilot.press("1", "R")
        await wait_until(pilot, lambda: app.live.status == "finished")
        await app.workers.wait_for_complete()
        assert app.live.run_id == run_id  # the same stored run, continued
        assert [r.round for r in app.store.rounds(run_id)] == [1, 2, 3]
        assert app.store.run(run_id).status == "finished"
        assert app.store.proposals(run_id)


@pytest.mark.slow
async def test_refine_on_review_replaces_proposals_in_place_keeping_decisions(data_dir, single_thread):
    # Enough epochs that the refinement is still running when Progress is shown.
    flags = ["run", "--quiet", "--preset", "demo", "--rounds", "2", "--epochs", "30", "--set", "embed_dim=16",
             "--set", "hidden_dim=16", "--set", "n_universal=8"]  # fmt: skip
    assert CliRunner().invoke(cli_app, flags).exit_code == 0
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("R", "escape")  # the dialog, cancelled: nothing started
        assert app.live is None
        run_id = screen.run_id
        rows = app.store.proposals(run_id)
        await pilot.press("a", "a", "r", "r")
        accepted = {(r.lost_index, r.known_index) for r in rows[:2]}
        rejected = {(r.lost_index, r.known_index) for r in rows[2:4]}
        await pilot.press("R", "tab", "down", "enter", "ctrl+s")  # REFINE_ROUNDS rounds, in place (chosen)
        assert app.current_mode == "review"  # the reviewer stays where they are
        # Watch it; Review must still reload when shown again afterwards. (Whether the refinement is
        # still running at this key is the machine's timing, not the app's: a loaded CI machine once
        # ran the key after it had finished, so the test does not assert it.)
        await pilot.press("2")
        assert app.live is not None and app.live.refining
        await wait_until(pilot, lambda: app.live is not None and app.live.status == "finished")
        await app.workers.wait_for_complete()
        await pilot.press("3")
        await pilot.pause()
        assert app.screen is screen
        assert app.live.run_id == run_id
        assert [r.round for r in app.store.rounds(run_id)] == [1, 2, 3, 4, 5]
        shown = {(r.lost_index, r.known_index) for r in screen.rows}  # reloaded in place
        assert accepted <= shown and not shown & rejected
        assert app.store.judgments(run_id) == {**dict.fromkeys(accepted, ACCEPTED), **dict.fromkeys(rejected, REJECTED)}
        counts_text = str(screen.query_one("#review-counts").render())
        assert "2 accepted" in counts_text and "+2 judged, not proposed now" in counts_text


def tiny_channel_run(tmp_path) -> None:
    """A finished channel run with a checkpoint, through the CLI: the cheapest run that refines for real."""
    corpus = tmp_path / "tiny.cog"
    write_generated(corpus, GeneratorSpec(kind="shared-alphabet", seed=3, lost_words=40))
    flags = ["run", "--quiet", "--method", "channel", "--set", "channel_steps=20", "--corpus", str(corpus)]
    result = CliRunner().invoke(cli_app, flags)
    assert result.exit_code == 0, result.output


async def refine_by_keyboard(pilot, rounds: str, branch: bool = False) -> None:
    """R, the rounds typed, in place or a branch (the default, into the offered folder), start; then
    wait for the end."""
    await pilot.press("R")
    assert isinstance(pilot.app.screen, RefineScreen)
    await pilot.press("end", "ctrl+u", *rounds)
    if not branch:
        await pilot.press("tab", "down", "enter")  # the choice: in place
    await pilot.press("ctrl+s")
    assert isinstance(pilot.app.screen, ReviewScreen)
    await wait_until(pilot, lambda: pilot.app.live is not None and pilot.app.live.status == "finished")
    await pilot.pause()  # RunDone's reload
    await pilot.app.workers.wait_for_complete()


def pairs_of(rows) -> dict[int, int]:
    return {r.lost_index: r.known_index for r in rows}


@pytest.mark.slow
async def test_refining_in_place_marks_the_changed_proposals_and_keeps_the_cursor(data_dir, tmp_path, single_thread):
    tiny_channel_run(tmp_path)
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        screen = app.screen
        run_id = screen.run_id
        before = pairs_of(app.store.proposals(run_id))
        assert len(before) == len(screen.rows)  # one pair per lost word: every lost word stays proposed
        assert not screen.query_one("#pairs", DataTable).columns.get("changed")  # no refinement yet
        await pilot.press("down", "down", "down", "down", "down")
        lost = screen.by_rank[screen._current_rank()].lost_index
        await refine_by_keyboard(pilot, "1")  # no decisions: a control, allowed
        assert app.screen is screen and screen.run_id == run_id and len(app.store.runs()) == 1
        after = app.store.proposals(run_id)
        changed = {r.rank for r in after if before.get(r.lost_index) != r.known_index}
        assert changed and screen.changed == changed  # 20 more channel steps move some pairs
        table = screen.query_one("#pairs", DataTable)
        assert {str(table.get_cell(str(rank), "changed")) for rank in changed} == {"Δ"}
        assert not any(str(table.get_cell(str(r.rank), "changed")) for r in after if r.rank not in changed)
        assert f"Δ {len(changed)} changed by the last refinement" in str(screen.query_one("#review-counts").render())
        new_rank = next(r.rank for r in after if r.lost_index == lost)
        assert new_rank != 6  # measured: the word moved (to rank 7), so keeping the rank would fail here
        assert screen._current_rank() == new_rank  # the reviewer's word, at its new rank


@pytest.mark.slow
async def test_cancelling_a_refinement_leaves_the_run_finished(data_dir, tmp_path, single_thread):
    """c on Progress stops a refinement; the run it continued stays finished (not offered for resume)."""
    tiny_channel_run(tmp_path)
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        run_id = app.screen.run_id
        await pilot.press("R", "end", "ctrl+u", *"200", "tab", "down", "enter", "ctrl+s")  # 200 rounds in place
        await wait_until(pilot, lambda: app.live is not None and app.live.status == "running")
        await pilot.press("2", "c")
        await wait_until(pilot, lambda: app.live.status == "cancelled")
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert app.store.run(run_id).status == "finished" and len(app.store.runs()) == 1
        assert any("refinement cancelled" in str(n.message) for n in app._notifications)
        assert "cancelling the refinement: the run keeps its channel and stays finished" in app.live.log


@pytest.mark.slow
async def test_refining_as_a_branch_makes_a_new_run_and_leaves_the_source(data_dir, tmp_path, single_thread):
    tiny_channel_run(tmp_path)
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "a", "r")
        screen = app.screen
        source = app.store.run(screen.run_id)
        proposals = [(r.lost_index, r.known_index, r.score) for r in app.store.proposals(source.id)]
        decisions = app.store.judgments(source.id)
        lost = screen.by_rank[screen._current_rank()].lost_index  # rank 3
        await refine_by_keyboard(pilot, "1", branch=True)
        runs = app.store.runs()
        assert len(runs) == 2
        branch = next(r for r in runs if r.id != source.id)
        assert branch.run_dir == str(Path(source.run_dir + "-branch-1").resolve())
        assert (Path(branch.run_dir) / CHECKPOINT_NAME).is_file()
        assert [(r.lost_index, r.known_index, r.score) for r in app.store.proposals(source.id)] == proposals
        assert app.store.run(source.id).status == "finished" and app.store.judgments(branch.id) == decisions
        assert screen.run_id == branch.id  # Review moved to the branch, the cursor on the same lost word
        assert screen.by_rank[screen._current_rank()].lost_index == lost
        assert screen._current_rank() != 3  # measured: the word moved (to rank 10); the rank would not do
        old = {i: j for i, j, _ in proposals}
        changed = {r.rank for r in app.store.proposals(branch.id) if old.get(r.lost_index) != r.known_index}
        assert screen.changed == changed
        assert f"Δ {len(changed)} changed by run #{source.id}" in str(screen.query_one("#review-counts").render())


@pytest.mark.slow
async def test_a_channel_only_run_from_the_form_shows_its_steps_and_proposals(data_dir, single_thread, monkeypatch):
    monkeypatch.setitem(engine_config.PRESETS, "demo", {**engine_config.PRESETS["demo"], "channel_steps": 8})
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run_form(pilot)
        await choose_preset(pilot, screen, "demo")
        screen.query_one("#method", Select).focus()
        await pilot.press("enter", "down", "enter")  # neural -> channel, by keyboard
        assert screen.query_one("#method", Select).value == "channel"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.live is not None and app.live.status == "finished")
        await app.workers.wait_for_complete()
        live = app.live
        assert live.no_rounds and live.channel_step == 8 and live.losses == [] and live.rounds == 0
        assert str(app.screen.query_one("#epoch-label").render()) == "channel"  # the bar's label names it
        await pilot.pause(1.1)  # the plot is redrawn once a second: channel steps come faster than that
        curve = [loss for _, loss in live.channel_losses]
        assert len(curve) == 8 and app.screen.query_one("#loss-spark", Sparkline).data == curve
        assert str(app.screen.query_one("#loss-label").render()) == f"lexicon loss {curve[-1]:.2f}"
        assert not app.screen.query_one("#round-row").display  # no "EM rounds" bar for a run without them
        assert not app.screen.query_one("#acc-row").display  # nor a plot or table of rounds
        assert not app.screen.query_one("#rounds-table").display
        assert any("channel: training for the decipherment (8 steps)" in ln for ln in live.log)
        log_text = "".join(line.text for line in app.screen.query_one("#log", RichLog).lines)
        assert "channel done: 8 steps, lexicon loss" in log_text and "finished in" in log_text
        with Store(default_path(data_dir)) as store:
            run = store.run(live.run_id)
            assert run.status == "finished" and run.config["method"] == "channel" and run.accuracy is not None
            assert store.proposals(run.id) and store.char_map(run.id) and store.rounds(run.id) == []
        await pilot.press("4")  # the Key says where its readings come from
        await pilot.pause()
        assert "character channel" in str(app.screen.query_one("#key-head").render())
        await pilot.press("1")  # the Runs detail names the channel, not rounds that never ran
        await pilot.pause()
        detail = str(app.screen.query_one("#run-detail").render())
        assert "character channel alone (8 steps, lexicon objective, no neural model)" in detail
        assert "rounds x" not in detail
    async with DecipherApp(data_dir).run_test(size=SIZE) as pilot:  # the stored run plots the same curve
        await pilot.press("2")
        await pilot.pause()
        assert pilot.app.screen.query_one("#loss-spark", Sparkline).data == curve
        assert str(pilot.app.screen.query_one("#epoch-label").render()) == "channel"  # not "M-step" at 0%
        assert not pilot.app.screen.query_one("#acc-row").display
        assert not pilot.app.screen.query_one("#rounds-table").display
        log_text = "".join(line.text for line in pilot.app.screen.query_one("#log", RichLog).lines)
        assert "stored run #1: 8 channel step(s) recorded" in log_text
        assert pilot.app.screen.query_one("#epoch-bar", ProgressBar).percentage == 1.0
        assert str(pilot.app.screen.query_one("#loss-label").render()) == f"lexicon loss {curve[-1]:.2f}"


@pytest.mark.slow
async def test_the_default_run_from_the_form_is_auto_and_shows_its_decisions(data_dir, single_thread):
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run_form(pilot)
        assert screen.query_one("#preset", Select).value == NO_PRESET
        await set_field(pilot, "#field-auto_steps", "20")  # a short budget; the decisions are the same kind
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.live is not None and app.live.status == "finished")
        await app.workers.wait_for_complete()
        live = app.live
        # The bar ends at its total: the steps run, within the budget of 20 a pass (the demo is read again).
        with Store(default_path(data_dir)) as store:
            passes = store.run(live.run_id).decisions["reading"]["passes"]
        assert live.no_rounds and live.channel_step == live.channel_steps <= 20 * (1 + passes)
        # The demo is a cipher of an alphabet: two scripts, read again through its own map as one alphabet.
        assert any(ln.startswith("auto: edit channel (two scripts") and "read again" in ln for ln in live.log)
        with Store(default_path(data_dir)) as store:
            run = store.run(live.run_id)
            assert run.config["method"] == "auto" and run.decisions["channel_kind"] == "edit"
            assert run.n_cognates == run.decisions["demand"]["demand"] == len(store.proposals(run.id))
            assert run.config["threads"] == screen_threads()  # the form's field reached the run
            summary = json.loads((Path(run.run_dir) / "summary.json").read_text(encoding="utf-8"))
            assert summary["threads"] == screen_threads()  # and the engine computed with it
        await pilot.press("1")  # the Runs detail says what auto decided
        await pilot.pause()
        detail = str(app.screen.query_one("#run-detail").render())
        assert "auto: edit channel" in detail and "D = " in detail
    async with DecipherApp(data_dir).run_test(size=SIZE) as pilot:  # the stored run's Progress log says it too
        await pilot.press("2")
        await pilot.pause()
        log_text = "".join(line.text for line in pilot.app.screen.query_one("#log", RichLog).lines)
        assert "channel step(s) recorded" in log_text and "auto: edit channel" in log_text
        label = str(pilot.app.screen.query_one("#loss-label").render())
        # The last curve recorded: the fit's or, on one alphabet, the reverse channel's beside it.
        assert label.startswith(("transport loss ", "reverse transport loss ")), label


async def test_form_choices_follow_the_preset_and_reach_the_config(data_dir):
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_new_run_form(pilot)
        assert screen.query_one("#sparsify", Select).value == "top-k"
        assert screen.query_one("#method", Select).value == "auto"  # no preset: auto decides
        # torch's threads leave the screen a core (engine/run/device.py says why); no preset changes that
        assert screen.query_one("#field-threads", Input).value == str(screen_threads())
        await choose_preset(pilot, screen, "paper-romance")
        assert screen.query_one("#field-threads", Input).value == str(screen_threads())
        assert screen.query_one("#method", Select).value == "neural"
        assert screen.query_one("#sparsify", Select).value == "union-top-k"  # the romance preset's graph
        assert screen.query_one("#init_flow", Select).value == "uniform"
        await set_field(pilot, "#field-top_k", "10")
        screen.query_one("#init_flow", Select).value = "edit-distance"
        assert screen.query_one("#channel_objective", Select).value == "lexicon"
        screen.query_one("#channel_objective", Select).value = "transport"
        assert screen.query_one("#channel_kind", Select).value == "pieces"
        screen.query_one("#channel_kind", Select).value = "edit"
        cfg, _ = build_config("paper-romance", None, screen.overrides())
        assert (cfg.top_k, cfg.sparsify, cfg.init_flow) == (10, "union-top-k", "edit-distance")
        assert (cfg.channel_objective, cfg.channel_kind) == ("transport", "edit")
        await set_field(pilot, "#field-top_k", "0")
        assert screen.query_one("#field-top_k", Input).has_class("-invalid")


async def test_key_screen_sorts_by_confidence(data_dir, tmp_path):
    """s on the Key screen orders the lost symbols by their best reading's probability, and back."""
    seed_store(data_dir, tmp_path)  # its key: γ 0.9, λ 0.8, σ 0.7 (alphabetical: γ, λ, σ too)
    with Store(default_path(data_dir)) as store:
        store.conn.execute("UPDATE char_map SET prob = 0.95 WHERE lost_symbol = 'σ' AND rank = 1")
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await pilot.pause()
        table = app.screen.query_one("#key-table", DataTable)

        def order() -> list[str]:
            return [str(table.get_row_at(n)[0]).strip() for n in range(table.row_count)]

        assert order() == ["γ", "λ", "σ"] and "by symbol" in str(app.screen.query_one("#key-head").render())
        await pilot.press("s")
        await pilot.pause()
        assert order() == ["σ", "γ", "λ"] and "most sure first" in str(app.screen.query_one("#key-head").render())
        await pilot.press("s")
        await pilot.pause()
        assert order() == ["γ", "λ", "σ"]


async def test_the_key_lists_the_proposals_that_read_the_selected_sign(data_dir, tmp_path):
    """Moving along the Key's table shows, beside it, how the proposals read that sign (from their
    stored readings) and which proposals they are; `g` offers no grid for an alphabet's key."""
    run_id = seed_store(data_dir, tmp_path)  # a neural run: each pair read along its diagonal attention
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await pilot.pause()
        screen = app.screen
        rows = app.store.proposals(run_id)
        for _ in range(3):
            (sign,) = screen.selected_signs()
            panel = str(screen.query_one("#key-uses").render())
            users = [r for r in rows if any(seg.lost == (sign,) for seg in r.alignment)]
            assert users and f"{sign} in " in panel
            assert all(f"#{r.rank} {r.lost} -> {r.known}" in panel for r in users)
            await pilot.press("down")
            await pilot.pause()
        await pilot.press("g")
        await pilot.pause()
        assert not screen.as_grid and screen.query_one("#key-table").cursor_type == "row"


async def test_pinning_a_sign_keeps_the_key_cursor_on_it(data_dir, tmp_path):
    """p redraws the Key table with the pin shown; the cursor stays on the pinned sign (it went back
    to the first row), so a decipherer pinning several signs goes on from where they were."""
    run_id = seed_store(data_dir, tmp_path)
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "4")
        await pilot.pause()
        key = app.screen
        await pilot.press("down", "down")
        (sign,) = key.selected_signs()
        assert sign != sorted(app.store.char_map(run_id))[0]
        await pilot.press("p")
        assert isinstance(app.screen, PinScreen)
        await pilot.press("end", "ctrl+u", "k", "a", "enter")
        await pilot.pause()
        assert app.store.pins(run_id) == [(sign, "ka")] and key.selected_signs() == [sign]


@pytest.mark.slow
async def test_a_sign_pinned_on_the_key_holds_the_refinement_and_review_marks_what_changed(
    data_dir, tmp_path, single_thread
):
    """Key: p pins the selected sign's value (typed; kept in the store), R refines the run holding
    it; the sign then reads as its value more often, and Review's footer counts the proposals that
    changed."""
    tiny_channel_run(tmp_path)
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")  # Review first: it tracks the refinement's Δ
        run_id = app.screen.run_id
        await pilot.press("4")
        await pilot.pause()
        key = app.screen
        (sign,) = key.selected_signs()
        readings = app.store.char_map(run_id)[sign]
        value = readings[1][0] if len(readings) > 1 else "a"  # not what it reads as now
        await pilot.press("p")
        assert isinstance(app.screen, PinScreen)
        await pilot.press("end", "ctrl+u", *value, "enter")
        await pilot.pause()
        assert app.store.pins(run_id) == [(sign, value)]
        assert "1 sign(s) pinned" in str(key.query_one("#key-head").render())
        await pilot.press("R")
        assert isinstance(app.screen, RefineScreen)
        await pilot.press("end", "ctrl+u", "1", "tab", "down", "enter", "ctrl+s")  # one round, in place
        await wait_until(pilot, lambda: app.live is not None and app.live.status == "finished")
        await pilot.pause()
        await app.workers.wait_for_complete()
        # The refinement leans to the pin: the sign reads as its value more often than before (a
        # pin leads rather than forbids, so one round need not make it the top reading).
        assert dict(app.store.char_map(run_id)[sign]).get(value, 0.0) > dict(readings).get(value, 0.0)
        await pilot.press("3")
        await pilot.pause()
        review = app.screen
        assert review.changed and f"Δ {len(review.changed)} changed" in str(review.query_one("#review-counts").render())


async def test_a_five_vowel_grid_fits_beside_the_side_panel_at_80_columns(data_dir, tmp_path, monkeypatch):
    """A syllabary's grid with five vowels, a column of consonants written alone and cells of two
    signs fits its table without scrolling at 80 x 24 (its last column was cut before)."""
    run_id = seed_store(data_dir, tmp_path)
    # The fixture's known words hold two vowels; the grid of a Linear B-like key has five.
    monkeypatch.setattr("tui_decipher.tui.screens.key.key_vowels", lambda _rows: frozenset("aeiou"))
    store_readings(data_dir, run_id, {"γ": "na", "λ": "ne", "σ": "ni", "ι": "no", "υ": "nu", "ρ": "n", "β": "phu",
                                      "ο": "phu"})  # fmt: skip
    app = DecipherApp(data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("4", "g")
        await pilot.pause()
        table = app.screen.query_one("#key-table", DataTable)
        assert app.screen.as_grid and len(table.columns) == 7  # the onsets, a e i o u, and the consonant alone
        assert table.virtual_size.width <= table.scrollable_content_region.width
        assert "–: read as the consonant alone" in str(app.screen.query_one("#key-head").render())


async def test_the_grid_underlines_the_cells_of_pinned_signs(data_dir, tmp_path):
    """A pinned sign's cell in the syllable grid is underlined and the header says so; the other
    cells are not."""
    run_id = seed_store(data_dir, tmp_path)
    store_readings(data_dir, run_id, SYLLABLE_READINGS)
    with Store(default_path(data_dir)) as store:
        store.set_pins(run_id, "λ", ["sa"])
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4", "g")
        await pilot.pause()
        table = app.screen.query_one("#key-table", DataTable)
        cells = [table.get_row_at(n) for n in range(table.row_count)]
        styled = {str(c).split()[0]: str(c.style) for row in cells for c in row[1:] if str(c).strip()}
        assert "underline" in styled["λ"] and not any("underline" in v for k, v in styled.items() if k != "λ")
        head = str(app.screen.query_one("#key-head").render())
        assert "underlined: a cell holding one of the 1 pinned sign(s)" in head


async def test_an_auto_runs_time_left_reads_as_at_most(data_dir):
    """auto's channel steps are a budget it may stop well short of (its fit stops once its plan
    settles): the Progress header says the time left is at most what the pace gives; a run whose
    steps are all taken says it plainly."""
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        for at_most in (True, False):
            live = LiveRun(status="running")
            stats = {"lost_words": 240, "known_words": 360, "lost_symbols": 21, "known_symbols": 20}
            live.apply(RunStarted("demo", "ves", "kal", stats, "cpu", 0, 0, 1, 10, 0, "auto", steps_at_most=at_most))
            live.apply(ChannelStep(0, 10, 1000, 5.0, 1.0))
            app.live = live
            await pilot.press("2")
            await pilot.pause()
            app.screen.refresh_from_app()
            head = str(app.screen.query_one("#progress-head").render())
            assert live.eta_at_most is at_most and ("left at most " in head) is at_most and "left " in head
            await pilot.press("1")
