"""Peg solitaire's depth-first search (dfs), its bitboard layout, kernel, arrays, endgame and plain path."""
