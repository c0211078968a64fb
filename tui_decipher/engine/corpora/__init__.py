"""Corpora in: the corpus and its words, the readers of each file format, the registry of known
corpora, character sets, the project's demo corpus and the generated ones."""
