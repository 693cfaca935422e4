"""puzzlesat: constraint models, CNF encodings and native backtrackers for hard puzzles."""

__version__ = "0.1.0"
