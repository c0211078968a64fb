"""A table of rows whose Home and End keys (and g, G, as in less and vim) go to the first and the last row.

Textual's DataTable scrolls sideways on Home and End where its cursor is a row, leaving the cursor
where it was: on Runs, End then `d` offered to delete the top run, not the one shown."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import DataTable


class RowTable(DataTable):
    """A DataTable on which Home and End (g and G) move a row cursor to the first and the last row.
    A screen that gives g another meaning binds it with priority (the Key screen's grid)."""

    BINDINGS = [
        Binding("home,g", "first_row", "First row", show=False, id="table.first"),
        Binding("end,G", "last_row", "Last row", show=False, id="table.last"),
    ]

    def action_first_row(self) -> None:
        """The first row (a cell or column cursor: the first column, as DataTable does)."""
        if self.cursor_type == "row":
            self.action_scroll_top()
        else:
            self.action_scroll_home()

    def action_last_row(self) -> None:
        """The last row (a cell or column cursor: the last column)."""
        if self.cursor_type == "row":
            self.action_scroll_bottom()
        else:
            self.action_scroll_end()
