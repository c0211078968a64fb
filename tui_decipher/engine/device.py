"""Device choice and seeding: cuda when present, CPU otherwise; seeds make CPU runs repeatable."""

from __future__ import annotations

import random

import numpy as np
import torch


def select_device(name: str = "auto") -> torch.device:
    """`auto` picks cuda when available; `cuda` without a GPU falls back to CPU."""
    if name == "auto" or name.startswith("cuda"):
        if torch.cuda.is_available():
            return torch.device("cuda" if name == "auto" else name)
        return torch.device("cpu")
    return torch.device(name)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
