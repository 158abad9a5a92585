"""The quick section's numbers (numpy only, like attn_math)."""

import numpy as np


def halves(count: int) -> np.ndarray:
    """1, 1/2, 1/4, ... : ``count`` numbers, each half the one before."""
    return 0.5 ** np.arange(count)
