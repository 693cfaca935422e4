"""The options rubik's strategies share (the metric, the horizon of an export, the depth cap)
and how a run reads them, defaults included."""

from __future__ import annotations

from typing import Any

from puzzlesat.core import Option
from puzzlesat.domains.rubik.maneuvers import METRICS

# the option of both bounded models (cpsat-bmc, cnf-bmc); they solve by raising N themselves:
# this one is for export
HORIZON = Option("horizon", int, 6, "export: the question 'solvable in N moves?'", low=0)
METRIC = Option("metric", str, "htm", "htm (half turns count 1) or qtm (half turns count 2)", choices=METRICS)
# the longest maneuver each strategy looks for when --max-depth is not given, (htm, qtm):
# native-ida reaches God's number, a bounded model asks a solver one question per length
# and stops where those questions grow too hard
MAX_DEPTH = {"native-ida": (20, 26), "cpsat-bmc": (10, 12), "cnf-bmc": (12, 14)}
MAX_DEPTH_OPTION = Option(
    "max_depth",
    int,
    None,
    "give up beyond this length (default: "
    + ", ".join(f"{name} {htm} htm / {qtm} qtm" for name, (htm, qtm) in MAX_DEPTH.items())
    + ")",
    low=0,
)


def metric_of(options: dict[str, Any]) -> str:
    """The metric a run asks for (``--metric``), lower case; the declared default when not given."""
    return str(options.get("metric") or METRIC.default).lower()


def max_depth_of(strategy: str, options: dict[str, Any], metric: str) -> int:
    """``--max-depth``, or the strategy's default for the metric (:data:`MAX_DEPTH`)."""
    given = options.get("max_depth")
    if given is not None:
        return int(given)
    htm, qtm = MAX_DEPTH[strategy]
    return qtm if metric == "qtm" else htm
