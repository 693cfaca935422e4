"""Blacken's branch and bound (bb) and its kernel."""
