"""Each method's name and what it is in a few words, in engine/methods' `METHODS` order: what
`decipher run --help` says of them, read without importing the methods (and torch) that the
methods package imports. Each method class takes its `summary` from here."""

from __future__ import annotations

SUMMARIES: dict[str, str] = {
    "auto": "the channel, D and C chosen from the word lists (the default)",
    "neural": "the paper's neural EM, as its presets run it",
    "channel": "a character channel alone, no neural model",
}
