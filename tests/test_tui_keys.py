"""Keys people know (issue "A linguist's tool", item 3): Home/End and g/G go to the first and the
last row and the action that follows acts on that row; Escape clears Review's filters; a choice
shows by a mark, not colour alone."""

from __future__ import annotations

from tui_support import seed_large_store, seed_store

from tui_decipher.store import ACCEPTED
from tui_decipher.tui.app import DecipherApp
from tui_decipher.tui.screens.confirm import ConfirmScreen
from tui_decipher.tui.screens.review import ReviewScreen
from tui_decipher.tui.widgets.marked import MarkedCheckbox
from tui_decipher.tui.widgets.row_table import RowTable

SIZE = (100, 32)


async def test_home_end_g_and_g_move_the_runs_cursor_and_delete_asks_about_that_run(data_dir, tmp_path) -> None:
    folders = [tmp_path / f"r{k}" for k in range(3)]
    for folder in folders:
        folder.mkdir()
    ids = [seed_store(data_dir, folder) for folder in folders]
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one("#runs-table", RowTable)
        assert table.row_count == 3 and table.cursor_coordinate.row == 0
        await pilot.press("end")
        assert table.cursor_coordinate.row == 2
        await pilot.press("home")
        assert table.cursor_coordinate.row == 0
        await pilot.press("G")
        assert table.cursor_coordinate.row == 2
        first = int(table.coordinate_to_cell_key((0, 0)).row_key.value)
        last = int(table.coordinate_to_cell_key((2, 0)).row_key.value)  # the run on the last row
        assert first != last
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen) and f"#{last}" in str(app.screen.question)
        await pilot.press("y")
        await pilot.pause()
        assert sorted(r.id for r in app.store.runs()) == sorted(set(ids) - {last})
        await pilot.press("g")
        assert table.cursor_coordinate.row == 0


async def test_home_and_end_on_review_reach_the_last_pair_and_a_judgment_lands_there(data_dir, tmp_path) -> None:
    run_id = seed_large_store(data_dir, tmp_path, 120)
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        table = screen.query_one("#pairs", RowTable)
        await pilot.press("end")
        assert table.cursor_coordinate.row == table.row_count - 1 == len(screen.shown_ranks) - 1
        last = screen.by_rank[screen.shown_ranks[-1]]
        await pilot.press("a")
        assert app.store.judgments(run_id) == {(last.lost_index, last.known_index): ACCEPTED}
        await pilot.press("home")
        assert table.cursor_coordinate.row == 0
        await pilot.press("G", "g")
        assert table.cursor_coordinate.row == 0


async def test_escape_clears_the_text_filter_the_status_filter_and_the_queue(data_dir, tmp_path) -> None:
    seed_store(data_dir, tmp_path)
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        screen = app.screen
        every = list(screen.shown_ranks)
        text = screen.by_rank[every[0]].known  # a word one pair shows
        await pilot.press("slash", *text)
        narrowed = list(screen.shown_ranks)
        assert 0 < len(narrowed) < len(every)
        await pilot.press("escape")  # in the box: cleared, back to the list
        await pilot.pause()
        assert screen.shown_ranks == every and screen.query_one("#filter").value == ""
        assert not screen.query_one("#filter").display and screen.focused is screen.query_one("#pairs")
        await pilot.press("slash", *text, "enter")  # enter keeps it
        assert screen.shown_ranks == narrowed and screen.focused is screen.query_one("#pairs")
        await pilot.press("f")  # and the status filter too
        assert screen.status_filter != "all"
        await pilot.press("escape")  # on the list: every filter cleared
        await pilot.pause()
        assert screen.shown_ranks == every and screen.status_filter == "all"


async def test_on_the_key_end_goes_to_the_last_sign_and_g_still_draws_the_grid(data_dir, tmp_path) -> None:
    seed_store(data_dir, tmp_path)
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        table = app.screen.query_one("#key-table", RowTable)
        assert table.row_count > 2
        await pilot.press("end")
        assert table.cursor_coordinate.row == table.row_count - 1
        await pilot.press("home", "G")
        assert table.cursor_coordinate.row == table.row_count - 1
        await pilot.press("g")  # the Key screen's own g: a syllabary's grid, here why there is none
        await pilot.pause()
        assert any("no grid" in str(n.message) for n in app._notifications)
        assert table.cursor_coordinate.row == table.row_count - 1  # not the table's first row


async def test_the_export_dialogs_box_shows_its_tick_by_a_mark(data_dir, tmp_path) -> None:
    seed_store(data_dir, tmp_path)
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "e")
        box = app.screen.query_one("#export-all", MarkedCheckbox)
        assert not box.value and "X" not in str(box.render())
        box.value = True
        await pilot.pause()
        assert "X" in str(box.render())


async def test_review_sorts_by_a_column_with_s_or_its_header_and_a_judgment_follows_the_row(data_dir, tmp_path) -> None:
    """`s` cycles the sort (rank, lost, known, status); a column's header sorts by it, and again the
    other way round; the counts line says so; a judgment lands on the pair under the cursor."""
    from textual.widgets import DataTable

    from tui_decipher.tui.widgets.review_counts import ReviewCounts

    run_id = seed_large_store(data_dir, tmp_path, 60)
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        by_rank = list(screen.shown_ranks)
        assert by_rank == sorted(by_rank)  # the run's own order
        await pilot.press("s")
        lost = [screen.by_rank[r].lost.casefold() for r in screen.shown_ranks]
        assert lost == sorted(lost) and screen.shown_ranks != by_rank
        assert "by lost" in str(screen.query_one("#review-counts", ReviewCounts).render())
        table = screen.query_one("#pairs", RowTable)
        await pilot.press("end", "a")
        pair = screen.by_rank[screen.shown_ranks[-1]]
        assert app.store.judgments(run_id) == {(pair.lost_index, pair.known_index): ACCEPTED}
        await pilot.press("s", "s")  # known, then status: the judged pair sorts first
        assert screen.sort_by == "status" and screen.by_rank[screen.shown_ranks[0]].status == ACCEPTED
        await pilot.press("s")
        assert screen.shown_ranks == by_rank  # back to rank
        known = table.get_column_index("known")
        column = table.ordered_columns[known]
        table.post_message(DataTable.HeaderSelected(table, column.key, known, column.label))
        await pilot.pause()
        words = [screen.by_rank[r].known.casefold() for r in screen.shown_ranks]
        assert words == sorted(words)
        table.post_message(DataTable.HeaderSelected(table, column.key, known, column.label))
        await pilot.pause()
        words = [screen.by_rank[r].known.casefold() for r in screen.shown_ranks]
        assert words == sorted(words, reverse=True) and screen.sort_reverse


async def test_t_takes_another_candidate_accepting_it_and_rejecting_the_shown_pair(data_dir, tmp_path) -> None:
    """Review's `t` offers the model's other candidates for the lost word; Enter takes one: that
    pair accepted, the shown pair rejected; `u` twice undoes both; Escape takes none."""
    import json

    from tui_decipher.engine.corpora.corpus import read_cog, word_text
    from tui_decipher.store import OPEN, REJECTED, Store, default_path
    from tui_decipher.tui.screens.candidates import CandidateScreen

    run_id = seed_store(data_dir, tmp_path)
    with Store(default_path(data_dir)) as store:  # the run's corpus as a file its vocabulary is read from
        config = json.loads(store.conn.execute("SELECT config_json FROM runs WHERE id = ?", (run_id,)).fetchone()[0])
        config["corpus"] = str(tmp_path / "fixed.cog")
        store.conn.execute("UPDATE runs SET config_json = ? WHERE id = ?", (json.dumps(config), run_id))
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "down")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        row = screen.by_rank[screen.shown_ranks[1]]
        await pilot.press("t")
        assert isinstance(app.screen, CandidateScreen)
        taken = app.screen.candidates[0][0]
        assert taken != row.known
        await pilot.press("escape")  # none taken
        assert app.store.judgments(run_id) == {}
        await pilot.press("t", "enter")
        await pilot.pause()
        judged = app.store.judgments(run_id)
        assert judged[(row.lost_index, row.known_index)] == REJECTED and row.status == REJECTED
        accepted = [pair for pair, status in judged.items() if status == ACCEPTED]
        assert len(judged) == 2 and len(accepted) == 1 and accepted[0][0] == row.lost_index
        words = [word_text(w) for w in read_cog(tmp_path / "fixed.cog").known_words]
        assert accepted[0][1] != row.known_index and words[accepted[0][1]] == taken  # the word chosen
        await pilot.press("u", "u")
        assert app.store.judgments(run_id) == {} and row.status == OPEN
