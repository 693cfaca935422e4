"""CP-SAT formulations (ortools.sat.python.cp_model)."""
