"""Racing strategies against each other in separate processes, and comparing them.

- :mod:`puzzlesat.portfolio.race`: ``solve --portfolio``, the race policy (first verified answer wins).
- :mod:`puzzlesat.portfolio.compare`: ``compare`` (every strategy on every instance, tables, plot).
- :mod:`puzzlesat.portfolio.report`: the race's live status line and end table.
- :mod:`puzzlesat.portfolio.backends`: where runs go (:class:`~puzzlesat.portfolio.backends.Backend`,
  ``open_pool``): local processes or Ray.
- :mod:`puzzlesat.portfolio.supervisor`: the local child processes, watched and stopped.
- :mod:`puzzlesat.portfolio.ray_backend`: the same on a Ray cluster (``--backend ray``).
- :mod:`puzzlesat.portfolio.runs`: what the parent knows of each run, and its check of an answer.
- :mod:`puzzlesat.portfolio.child`: the entry point of each child process.

Processes are started and stopped by :mod:`puzzlesat.core.processes`.
"""
