"""The decipherment engine: pure torch + OR-Tools, no UI imports."""
