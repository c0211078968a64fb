"""The middle layer, between the engine and the front ends: a run's session (`session`), its
results written out (`results`), stored runs as the front ends show them (`run_views`), and
review decisions read and written (`review_io`). The CLI and the TUI both go through it; it
never imports a front end."""
