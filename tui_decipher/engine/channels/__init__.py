"""Beyond the paper: small character channels P(lost | known) whose best fit is a character map.

`pieces` writes each lost symbol from one or two known letters (a syllabary against an alphabet);
`edit` writes letter by letter with insertions and drops and a copy prior (two alphabets).
Both share the lattice helpers (`lattice`) and one trainer (`trainer.fit_channel`).
"""
