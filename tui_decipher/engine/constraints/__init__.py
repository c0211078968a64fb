"""What the decipherer tells the engine: reviewer judgments on pairs and known sign values."""
