"""The edge-matching searches: the exact row scan (rowscan, search, kernel, split, plain, abi),
the best-score search (score, score_kernel, checkpoint) and its Ray driver (ray)."""
