"""Racing strategies against each other in separate processes, and comparing them.

- :mod:`puzzlesat.portfolio.race`: ``solve --portfolio`` (first verified answer wins).
- :mod:`puzzlesat.portfolio.compare`: ``compare`` (every strategy on every instance, tables, plot).
- :mod:`puzzlesat.portfolio.child`: the entry point of each child process.
- :mod:`puzzlesat.portfolio.ray_backend`: the same on a Ray cluster (``--backend ray``).
"""
