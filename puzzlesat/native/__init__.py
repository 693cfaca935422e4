"""Problem-specific backtrackers compiled with numba."""
