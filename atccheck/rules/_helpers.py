"""Small pieces several rules share."""

from __future__ import annotations

from atccheck.context import CheckContext


def unregistered_error(ctx: CheckContext) -> str:
    """The code ATC prints for an unregistered parser key in this profile's era (E19010 or E13010)."""
    return ctx.target.profile.unregistered_error


def opsets_text(opsets: tuple[int, ...] | list[int]) -> str:
    """Compact opset list: '8-12, 14-18'."""
    values = sorted(set(opsets))
    if not values:
        return "none"
    runs: list[str] = []
    start = prev = values[0]
    for v in values[1:] + [None]:  # type: ignore[list-item]
        if v is not None and v == prev + 1:
            prev = v
            continue
        runs.append(f"{start}-{prev}" if prev != start else f"{start}")
        if v is not None:
            start = prev = v
    return ", ".join(runs)
