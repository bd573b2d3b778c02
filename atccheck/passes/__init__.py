"""The fix passes: one pass per module in this package."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from atccheck.passes.base import FixPass, PassContext, PassResult, register_pass, registered_passes

__all__ = ["FixPass", "PassContext", "PassResult", "all_passes", "register_pass"]


@lru_cache(maxsize=1)
def all_passes() -> tuple[type[FixPass], ...]:
    """Every pass class in pipeline order (modules are imported on first call)."""
    for info in pkgutil.iter_modules(__path__):
        if info.name != "base" and not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    return tuple(registered_passes().values())
