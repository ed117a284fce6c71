"""Strategy: bots, the turn solver (expert, the hint), the game solver and its kernels."""
