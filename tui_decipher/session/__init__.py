"""The middle layer, between the engine and the front ends: a run's session (`run_session`), its
results written out (`results`), stored runs as the front ends show them (`run_views`), and
judgments read and written (`review_io`). The CLI and the TUI both go through it; it
never imports a front end."""
