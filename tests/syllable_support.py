"""The syllable search's starts as tests shape them (tests/test_auto.py, tests/test_map_pins.py)."""

from __future__ import annotations

from contextlib import closing


def starts_made(real_starts, made, calls):
    """The syllable search's starts as they run, each map replaced by `made(map)` once it is
    appended to `calls` (the maps auto took, in order)."""

    def starts(*args, **kwargs):
        with closing(real_starts(*args, **kwargs)) as inner:
            for found in inner:
                if found is None:
                    yield None
                    return
                calls.append(found)
                yield made(found)

    return starts
