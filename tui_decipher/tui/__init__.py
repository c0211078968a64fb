"""The Textual front end (`decipher-tui`). Only this package imports Textual."""
