"""One module per widget."""
