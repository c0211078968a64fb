"""The compiled lattices (engine/channels/*_scores.py) load from numba's cache in a later process:
a kernel that calls another compiled function defined beside it was compiled afresh, and saved to
the cache again, by every process (about a second of every run, and a cache growing a file a run)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Every kernel once, on tiny inputs: both channels, all pairs and listed pairs, with and without a gradient.
SCRIPT = """
import torch
from tui_decipher.engine.channels.edit import EditChannel
from tui_decipher.engine.channels.pieces import CharacterChannel
from tui_decipher.engine.corpora.charset import Charset

lost_cs, known_cs = Charset.from_words([tuple("abcd")]), Charset.from_words([tuple("abxy")])
lost, lost_len = torch.tensor([[1, 2, 3], [2, 3, 0]]), torch.tensor([3, 2])
for channel in (CharacterChannel(len(lost_cs), len(known_cs), torch.Generator().manual_seed(0), 0.5),
                EditChannel(lost_cs, known_cs, torch.Generator().manual_seed(0), 0.5, copy_bias=1.0)):
    known = torch.tensor([[1, 2, channel.none], [2, 3, 4]])
    known_len = torch.tensor([2, 3])
    with torch.no_grad():
        channel.log_prob(lost, lost_len, known, known_len)
        channel.log_prob_pairs(lost, lost_len, known, known_len)
    channel.log_prob(lost, lost_len, known, known_len).sum().backward()
    channel.log_prob_pairs(lost, lost_len, known, known_len).sum().backward()
"""


def _run(env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[1])  # fmt: skip
    return done.stdout + done.stderr


def test_the_compiled_lattices_load_from_the_cache_in_a_second_process(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "NUMBA_DEBUG_CACHE": "1"}
    first = _run(env)  # compiles every kernel into an empty cache
    second = _run(env)
    assert first.count("data saved") >= 6  # six kernels: both channels' three
    assert "data saved" not in second, second
    assert second.count("data loaded") >= 6
