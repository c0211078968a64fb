"""tui-decipher: computational decipherment of lost languages (Luo, Cao & Barzilay 2019)."""

__version__ = "0.7.0"
