"""Masyu's depth-first search with rule propagation (dfs) and its kernel."""
