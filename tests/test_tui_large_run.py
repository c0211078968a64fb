"""Review and the Key screen on a list as large as the full Ugaritic list's 7235 proposals, driven by
keys sent as a held key sends them (issue "Review that explains each pair": responsive there).

`pilot.press` waits for the app to go idle after each key (at least two 20 ms sleeps), so 100
presses cost seconds however fast the screen is; a held key's events arrive without waiting, as
these tests send them. The time it takes on the real list is measured in docs/speed.md, not here.
"""

from __future__ import annotations

from textual import events
from textual.widgets import DataTable, Static

from tests.tui_support import seed_large_store
from tui_decipher.tui.app import DecipherApp

SIZE = (120, 34)
N_PROPOSALS = 7235  # the full Ugaritic list's proposals


async def hold(app: DecipherApp, pilot, key: str, times: int) -> None:
    """Send `key` `times` times without waiting in between (a held key), then let the app catch up."""
    for _ in range(times):
        event = events.Key(key, None)
        event.set_sender(app)
        app._driver.send_message(event)
    await pilot.pause()


async def test_review_follows_a_held_key_through_7235_proposals_and_the_key_screen_opens(data_dir, tmp_path):
    seed_large_store(data_dir, tmp_path, N_PROPOSALS)
    app = DecipherApp(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        table = app.screen.query_one("#pairs", DataTable)
        assert table.row_count == N_PROPOSALS
        await hold(app, pilot, "down", 100)
        assert table.cursor_coordinate.row == 100
        # The side panel explains the pair under the cursor, not one the keys passed over.
        assert "#101" in str(app.screen.query_one("#pair-title", Static).render())
        await hold(app, pilot, "4", 1)
        assert app.current_mode == "key"
        key_table = app.screen.query_one("#key-table", DataTable)
        assert key_table.row_count == 12  # the twelve letters of the list's alphabet
        # The first sign's side panel counts the proposals whose reading uses it.
        using_a = sum("a" in row.lost for row in app.store.proposals(app.selected_run))
        uses = str(app.screen.query_one("#key-uses", Static).render())
        assert uses.startswith(f"a in {using_a} proposal(s)")
