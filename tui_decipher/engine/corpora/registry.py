"""The registry of known corpora (`corpora/registry.toml`) and corpus loading by name or path."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .corpus import Corpus, CorpusError, restrict_to_paired
from .demo_corpus import demo_cog_text
from .formats import read_corpus_file
from .formats.word_lists import read_word_lists

REPO_ROOT = Path(__file__).resolve().parents[3]
REPO_CORPORA = REPO_ROOT / "corpora"
REGISTRY_FILE = REPO_CORPORA / "registry.toml"


@dataclass(frozen=True)
class RegistryEntry:
    name: str
    file: str
    location: str  # "repo" | "shared"
    lost: str
    known: str
    languages: str
    sha256: str
    source: str
    preset: str  # the paper's settings for this corpus, applied only when named with --preset
    paired_only: bool = False


def shared_corpora_dirs() -> list[Path]:
    """Where third-party corpora are looked for: $DECIPHER_CORPORA, then ../shared/corpora."""
    dirs = [Path(p) for p in os.environ.get("DECIPHER_CORPORA", "").split(os.pathsep) if p]
    dirs.append(REPO_ROOT.parent / "shared" / "corpora")
    dirs.append(Path.cwd().parent / "shared" / "corpora")
    return dirs


def load_registry(path: Path = REGISTRY_FILE) -> dict[str, RegistryEntry]:
    """Registry entries by name."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {e["name"]: RegistryEntry(**e) for e in data.get("corpus", [])}


def entry_path(entry: RegistryEntry) -> Path | None:
    """The file of a registry entry, or None when it cannot be found here."""
    if entry.location == "repo":
        path = REPO_CORPORA / entry.file
        return path if path.is_file() else None
    for folder in shared_corpora_dirs():
        if (folder / entry.file).is_file():
            return folder / entry.file
    return None


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class LoadedCorpus:
    corpus: Corpus
    entry: RegistryEntry | None
    path: str
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class CorpusSpec:
    """Which corpus to read, apart from any run's settings: a registry name or the path of a corpus
    file or folder (`corpus`) and its two languages (`lost`, `known`: codes, IDs, Glottocodes or
    0-based indices; empty: the registry's or the file's first two), or two plain word lists
    (`lost_words`, `known_words`, which then name the languages with `lost` and `known`)."""

    corpus: str = "demo"
    lost: str = ""
    known: str = ""
    lost_words: str = ""
    known_words: str = ""

    @classmethod
    def of(cls, cfg: object) -> CorpusSpec:
        """The corpus a run's settings name: a `DecipherConfig` (any object with these fields), or a
        stored run's config as a dict."""
        names = [f.name for f in dataclasses.fields(cls)]
        if isinstance(cfg, dict):
            return cls(**{name: str(cfg[name]) for name in names if cfg.get(name) is not None})
        return cls(**{name: getattr(cfg, name) for name in names})


def load_corpus(source: CorpusSpec | object) -> LoadedCorpus:
    """The corpus `source` names (a `CorpusSpec`, or a run's settings: `CorpusSpec.of`): word lists,
    a registry name, or a corpus file or folder of any format (`.cog`, a CLDF Wordlist, an EDICTOR
    wordlist; engine/corpora/formats/). A run about to start checks its demand against it too
    (engine/methods' `check_demand`)."""
    return _load_corpus(source if isinstance(source, CorpusSpec) else CorpusSpec.of(source))


def _load_corpus(cfg: CorpusSpec) -> LoadedCorpus:
    if cfg.lost_words or cfg.known_words:
        if not (cfg.lost_words and cfg.known_words):
            missing = "known_words" if cfg.lost_words else "lost_words"
            raise CorpusError(cfg.lost_words or cfg.known_words, None, f"word lists need {missing} as well")
        corpus = read_word_lists(cfg.lost_words, cfg.known_words, cfg.lost or "lost", cfg.known or "known")
        return LoadedCorpus(corpus, None, f"{cfg.lost_words} + {cfg.known_words}")
    registry = load_registry()
    entry = registry.get(cfg.corpus)
    if entry is None:
        file = Path(cfg.corpus).expanduser()
        if not file.exists() and not any(sep in cfg.corpus for sep in ("/", "\\", ".")):
            raise CorpusError(cfg.corpus, None, f"no such corpus name or file (known names: {', '.join(registry)})")
        corpus = read_corpus_file(file, cfg.lost or None, cfg.known or None)
        return LoadedCorpus(corpus, None, str(file))
    path = entry_path(entry)
    warnings: list[str] = []
    if path is None and entry.name == "demo":
        # A packaged install without the repo's corpora/: regenerate the demo corpus in memory.
        cache = Path(os.environ.get("TMPDIR", "/tmp")) / "tui-decipher-demo.cog"
        cache.write_text(demo_cog_text(), encoding="utf-8")
        path = cache
    if path is None:
        where = ", ".join(str(d) for d in shared_corpora_dirs())
        raise CorpusError(entry.file, None, f"corpus {entry.name!r} not found (looked in {where})")
    if sha256_of(path) != entry.sha256:
        warnings.append(f"{path}: sha256 differs from the registry's; the file has changed")
    corpus = read_corpus_file(path, cfg.lost or entry.lost, cfg.known or entry.known, name=entry.name)
    if entry.paired_only:
        corpus = restrict_to_paired(corpus)
    return LoadedCorpus(corpus, entry, str(path), tuple(warnings))
