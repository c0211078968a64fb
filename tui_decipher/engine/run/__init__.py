"""A run as a whole: its settings and presets, its seed streams, its device, the problem every
method shares (vocabularies, demand, the flow solve), the events it sends and its checkpoint."""
