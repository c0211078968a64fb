"""The user's own keys: `keymap.toml` in the data folder, a `[keymap]` table of binding id = key
(`"review.accept" = "y"`), read as data; anything else in it is one line saying why it is ignored."""

from __future__ import annotations

import tomllib
from pathlib import Path

KEYMAP_NAME = "keymap.toml"


def read_keymap(path: Path) -> dict[str, str]:
    """The bindings `path` rebinds; ValueError naming the file where it is not such a keymap."""
    try:
        keymap = tomllib.loads(path.read_text(encoding="utf-8")).get("keymap", {})
    except OSError as exc:
        raise ValueError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:  # TOMLDecodeError and UnicodeDecodeError
        raise ValueError(f"{path}: not TOML ({' '.join(str(exc).split())})") from None
    if not isinstance(keymap, dict) or not all(isinstance(v, str) for v in keymap.values()):
        raise ValueError(f"{path}: [keymap] is not a table of binding id = key")
    return {str(k): v for k, v in keymap.items()}
