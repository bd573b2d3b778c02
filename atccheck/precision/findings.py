"""Words shared by the two numerics rules: where a cause sits, and what the keep list and the
other precision mode achieve (the rules detect; this only phrases what the preflight found)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from atccheck.findings import ROOT_GRAPH, Location

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.context import CheckContext
    from atccheck.precision.analysis import Cause, NumericsResult, OutputError

SIMULATION_SOURCE = "atccheck precision simulation (docs/numerics.md)"


def cause_location(ctx: "CheckContext", cause: "Cause") -> Location:
    gnode = next((g for g in ctx.graph.nodes if g.graph == ROOT_GRAPH and g.index == cause.node.index), None)
    label = gnode.label if gnode is not None else cause.node.name
    domain = gnode.domain if gnode is not None else ""
    return Location(graph=ROOT_GRAPH, node=label, op_type=cause.node.op_type, domain=domain)


def outputs_text(errors: "tuple[OutputError, ...]", names: "tuple[str, ...] | None" = None) -> str:
    shown = [e for e in errors if names is None or e.name in names]
    return "; ".join(f"{e.name}: {e.describe()}" for e in shown)


def hint(result: "NumericsResult") -> str:
    """What to do: the keep list and how far it brings the outputs back, or another mode."""
    parts = []
    keep = result.keep
    if keep is not None and keep.nodes and keep.restored:
        names = ", ".join(keep.nodes[:6]) + (f" (+{len(keep.nodes) - 6} more)" if len(keep.nodes) > 6 else "")
        parts.append(f"keep {len(keep.nodes)} node{'s' if len(keep.nodes) != 1 else ''} in float32 with "
                     f"--keep_dtype ({names}; --keep-dtype-out FILE writes the file): simulated outputs are then "
                     f"{outputs_text(keep.after)}")
    elif keep is not None:
        parts.append(f"no --keep_dtype list restores the outputs ({keep.note or 'search ended'}); "
                     "convert with --precision_mode=must_keep_origin_dtype")
    elif result.keep_note:
        parts.append(result.keep_note)
    alt = result.alternative
    if alt is not None and alt.ok:
        option = "--precision_mode_v2" if alt.mode.startswith("mixed_") else "--precision_mode"
        parts.append(f"or convert with {option}={alt.mode}, which this chip has: simulated outputs "
                     f"{outputs_text(alt.outputs)}")
    return "; ".join(parts) or "convert with --precision_mode=must_keep_origin_dtype"


def cause_data(result: "NumericsResult", cause: "Cause") -> dict[str, Any]:
    return {
        "precision_mode": result.mode,
        "soc": result.soc,
        "atc_node_name": cause.node.name,
        **cause.to_dict(),
        "outputs_before": [e.to_dict() for e in result.before if e.name in cause.outputs],
        "keep_dtype": list(result.keep.nodes) if result.keep is not None else [],
        "keep_restores": bool(result.keep and result.keep.restored),
        "outputs_after": [e.to_dict() for e in result.keep.after] if result.keep is not None else [],
        "alternative": result.alternative.to_dict() if result.alternative is not None else None,
        "inputs": list(result.inputs),
    }
