"""The README's screenshots: decipher-tui's Runs, Progress, Review and Key screens, saved as SVG by
the app itself (Textual's `save_screenshot`) after a real `decipher run` of the demo corpus in a
fresh data folder. Run from the repository root (about 15 s on 2 cores):

    python assets/screenshots.py [OUT_DIR]

OUT_DIR defaults to assets/. Nothing in the user's own data folder is read or written.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from typer.testing import CliRunner

from tui_decipher.cli import app as cli_app
from tui_decipher.tui.app import DecipherApp

SIZE = (120, 34)  # columns, rows: the README's width
SCREENS = {"1": "runs", "2": "progress", "3": "review", "4": "key"}


async def _shoot(data: Path, out: Path) -> list[Path]:
    app = DecipherApp(data)
    saved = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key, name in SCREENS.items():
            await pilot.press(key)
            if name == "review":  # a pair judged and the cursor on a later one, as a reviewer leaves it
                await pilot.press("a", "a", "a", "down")
            await pilot.pause()
            saved.append(Path(app.save_screenshot(f"{name}.svg", str(out))))
    return saved


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        ran = CliRunner().invoke(cli_app, ["run", "--quiet", "--corpus", "demo", "--seed", "1",
                                           "--data-dir", str(data), "--out", str(Path(tmp) / "demo")])  # fmt: skip
        if ran.exit_code != 0:
            raise SystemExit(f"decipher run failed: {ran.output}")
        for path in asyncio.run(_shoot(data, out)):
            print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
