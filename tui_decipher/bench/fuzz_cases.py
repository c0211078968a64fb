"""Word lists of every kind and size on which `decipher run` must finish or refuse in one line:
the generator's three kinds at sizes from one lost word up, a known list 20 times the lost one, and
the odd shapes a user's file can take (identical lists, one shared symbol, one symbol, none). The
CI test (tests/test_fuzz_auto.py) runs CASES on a cut schedule; the bench's `fuzz-user` runs
BENCH_CASES with the full one (bench/user_path.py)."""

from __future__ import annotations

from pathlib import Path

from .engine_api import GeneratorSpec, write_generated


def _cog(path: Path, rows: list[tuple[str, str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("lost\tknown\n" + "".join(f"{a}\t{b}\n" for a, b in rows), encoding="utf-8")
    return path


def fuzz_case(folder: Path, name: str) -> Path:
    """The `.cog` file of the case `name` (see CASES), written under `folder`."""
    kind, _, size = name.rpartition("-")
    n = int(size)
    path = folder / f"{name}.cog"
    if kind in ("substitution", "shared-alphabet", "syllabary"):
        write_generated(path, GeneratorSpec(kind=kind, seed=7, lost_words=n))
    elif kind == "large-known":  # a known list 20 times the lost one
        write_generated(path, GeneratorSpec(kind="large-known", seed=7, lost_words=n, known_ratio=20.0))
    elif kind == "identical":  # the two lists the same words
        words = ["ab", "ba", "abc", "cab", "bca", "acb", "aab", "bba", "cca", "abab", "baba", "cbca"][:n]
        _cog(path, [(w, w) for w in words])
    elif kind == "one-shared-symbol":  # two alphabets that share one symbol, "d"
        lost, known = "abcd", "dxyz"
        _cog(path, [(lost[k % 4] + lost[(k // 4) % 4] + "d", known[(k // 4) % 4] + known[k % 4]) for k in range(n)])
    elif kind == "single-symbol":  # one symbol on each side: the reader refuses it
        _cog(path, [("a" * (k + 1), "a" * (k + 2)) for k in range(n)])
    elif kind == "empty":  # no words at all: the reader refuses it
        _cog(path, [])
    else:
        raise ValueError(f"no fuzz case {name!r}")
    return path


# What CI runs (seconds each on 2 cores, on a cut schedule).
CASES = (
    "substitution-1", "substitution-2", "substitution-10", "substitution-50",
    "shared-alphabet-1", "shared-alphabet-2", "shared-alphabet-10", "shared-alphabet-50",
    "syllabary-1", "syllabary-2", "syllabary-10", "syllabary-50",
    "large-known-10", "large-known-50", "identical-1", "identical-10", "one-shared-symbol-2",
    "one-shared-symbol-16", "single-symbol-10", "empty-0",
)  # fmt: skip
# Cases refused before a run is recorded, each with a word of its one-line reason.
REFUSED = {"substitution-1": "at least 2", "shared-alphabet-1": "at least 2", "syllabary-1": "at least 2",
           "identical-1": "at least 2", "single-symbol-10": "only 1 symbol", "empty-0": "no"}  # fmt: skip
# What the bench runs with the full schedule: the larger sizes of every kind.
BENCH_CASES = ("substitution-50", "substitution-500", "shared-alphabet-50", "shared-alphabet-500", "syllabary-50",
               "syllabary-500", "large-known-50", "identical-10", "one-shared-symbol-16")  # fmt: skip
