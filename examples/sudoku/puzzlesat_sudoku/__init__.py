"""Sudoku for puzzlesat: an example plugin written only against puzzlesat's public API.

It adds the ``sudoku`` puzzle (:mod:`puzzlesat_sudoku.puzzle`, entry point in the group
``puzzlesat.puzzles``) with three formulations, and one more formulation of ``eternity``
(:mod:`puzzlesat_sudoku.eternity_edges`, group ``puzzlesat.strategies``).
"""
