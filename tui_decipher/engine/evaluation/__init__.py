"""Measures against gold (the one place gold is read), the edit-distance baseline, and a fitted
method evaluated on another corpus."""
