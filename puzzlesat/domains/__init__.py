"""Puzzle domains: parse and format the seed formats, verify, generate."""
