"""Beyond the paper: small character channels P(lost | known) whose best fit is a character map.

`pieces` writes each lost symbol from one or two known letters (a syllabary against an alphabet);
`edit` writes letter by letter with insertions and drops and a copy prior (two alphabets).
Both share the lattice helpers (`lattice`; the pieces channel's own in `pieces_lattice`) and one
trainer (`trainer.fit_channel`, its settings and saved state in `training`). On long lists training
reads each lost word's `shortlist`; `transport` is the plan a transport step trains on. A syllabary's
sign map is searched as a whole before (`syllables`: the model; `annealing`: the search, its moves
compiled in `annealing_moves`; `syllable_starts`: its starts, in threads; `spelling`: how the script writes codas).
"""
