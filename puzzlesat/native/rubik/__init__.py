"""The cube's IDA* (ida), its kernels, tables and their cache, the phase-1 coordinates, symmetry
reduction and the plain breadth-first path."""
