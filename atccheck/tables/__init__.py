"""Typed, read-only access to ``op_tables/`` (the support tables shipped in the wheel).

The tables are JSON written by ``tools/build_op_tables.py``. Each is read at most once per
process, on first use, with :mod:`importlib.resources`, and its entries are wrapped in small
frozen dataclasses when first asked about (registrations per profile, kernels per release and
family), so a run pays only for what it looks at. A rule asks
``tables().registry("8.0").lookup("", "Resize")`` rather than digging through dicts.

- ``schema``: the frozen records (Profile, Registration, Kernel, OpFact, ...);
- ``loader``: reading the JSON documents and turning each table into records;
- ``catalog``: ``Tables``, the parsed set and its lookups, and ``tables()``.
"""

from __future__ import annotations

from atccheck.tables.catalog import Tables, tables
from atccheck.tables.loader import TABLE_FILES, read_table
from atccheck.tables.schema import (
    AI_ONNX,
    AscendMapping,
    AtcError,
    AtcOption,
    AttrLimit,
    InferredOutput,
    InferShapeFact,
    Kernel,
    Limit,
    OpFact,
    OpSpec,
    ParserCheck,
    PluginRefusal,
    Profile,
    Registration,
    RegistryView,
    Soc,
    SpecInput,
    normalize_domain,
)

__all__ = [
    "AI_ONNX",
    "AscendMapping",
    "AtcError",
    "AtcOption",
    "AttrLimit",
    "InferShapeFact",
    "InferredOutput",
    "Kernel",
    "Limit",
    "OpFact",
    "OpSpec",
    "ParserCheck",
    "PluginRefusal",
    "Profile",
    "Registration",
    "RegistryView",
    "Soc",
    "SpecInput",
    "TABLE_FILES",
    "Tables",
    "normalize_domain",
    "read_table",
    "tables",
]
