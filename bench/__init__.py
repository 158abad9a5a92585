"""``make bench``: how fast the renderer is on this machine, as ratios measured in one run."""
