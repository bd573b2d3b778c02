"""What atccheck knows about ATC's command line, read from ``op_tables/atc_options.json``.

One place turns the option table into the questions the generator and the linter ask:
which flags ATC's parser knows, which values an enum flag takes and which error a bad value
raises, which ``--soc_version`` literals exist, and which precision values belong to which
flag (``flag_value_errors``, ``flag_overrides``). Nothing here is a literal fact of its own
except where a comment names the source.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from atccheck.tables import Tables, tables

OPTIONS_TABLE = "op_tables/atc_options.json"
PARSER_SOURCE = "hicann/ge@ffdcbc9f7:api/atc/cmd_flag_info.cc"

BUILD_MODE = "0"  # ATC's default --mode: build an offline model

# What ATC's option parser prints when it stops before any error code (cmd_flag_info.cc).
UNKNOWN_FLAG = "ERROR: unknown command line flag"
NON_OPTION = "ERROR: Non-option parameter"
MISSING_ARGUMENT = "ERROR: flag is missing its argument"


def required_flags(mode: str = BUILD_MODE, tbl: Tables | None = None) -> tuple[tuple[str, str], ...]:
    """(flag, the ATC error its absence raises) for each flag ``--mode`` needs (dependency_rules)."""
    entries = (tbl or tables()).atc_options_extra["required_flags"]
    return tuple((e["flag"], e["error"]) for e in entries if mode in e["modes"])


def gear_flags(tbl: Tables | None = None) -> tuple[str, ...]:
    """The gear options (--dynamic_batch_size, --dynamic_image_size, --dynamic_dims)."""
    return tuple((tbl or tables()).atc_options_extra["gear_flags"]["flags"])


def onnx_framework(tbl: Tables | None = None) -> str:
    """The --framework value of an ONNX model."""
    value: str = (tbl or tables()).atc_options_extra["onnx_framework"]["value"]
    return value



@dataclass(frozen=True)
class FlagInfo:
    """One flag ATC's option parser registers."""

    name: str  # canonical spelling with the leading dashes: --input_shape
    kind: str | None  # table type: string, enum, int, bool, path, flag, ...
    allowed: tuple[str, ...] | None  # closed value set, when the parser checks one
    relevance: str | None  # core, common, rare, ..., not_for_onnx, removed, undocumented
    related_errors: tuple[str, ...]
    note: str
    source: str
    # The ATC code a value outside ``allowed`` raises (atc_options.json flag_value_errors).
    value_error: str = "E10001"

    @property
    def takes_value(self) -> bool:
        """Required argument (``--name value`` works) unless the flag is a switch without one."""
        return self.kind not in ("flag", "bool_optional")


def _value_error(name: str, kind: str | None, errors: Mapping[str, Any]) -> str:
    """The code ATC's option parser prints for a bad value of this flag (cmd_flag_info.cc PrintValueError)."""
    if name in errors["by_flag"]:
        return errors["by_flag"][name]
    if name in errors["switch_flags"]:
        return errors["switch_error"]
    if kind == "bool":
        return errors["bool_error"]
    return errors["other_error"]


def _clean_value(value: str) -> str:
    """Table enums sometimes carry a remark: 'l1_optimize (no effect, equals off)'."""
    return value.split(" (", 1)[0].strip()


def known_flags(tbl: Tables | None = None) -> dict[str, FlagInfo]:
    """Every flag name ATC's parser accepts, canonical spelling (``--name``) to its facts."""
    tbl = tbl or tables()
    cached = getattr(tbl, "_atccheck_known_flags", None)
    if cached is not None:
        return cached
    flags: dict[str, FlagInfo] = {}
    overrides = {item["name"]: item for item in tbl.atc_options_extra.get("flag_overrides", ())}
    for option in tbl.atc_options.values():
        # Combined entries: '--help / -h', '--op_bank_path / --mdl_bank_path'.
        for name in (part.strip() for part in option.name.split(" / ")):
            if not name.startswith("--"):
                continue  # '-h' is the short form of --help
            allowed = tuple(_clean_value(v) for v in option.allowed_values) if option.allowed_values else None
            kind = option.type
            if kind and "|" in kind:
                kind = "string"
            if name in overrides:  # a combined entry whose own type does not say the parser's
                override = overrides[name]
                kind = override["type"]
                allowed = tuple(override["allowed_values"]) if override.get("allowed_values") else None
            flags[name] = FlagInfo(
                name=name,
                kind=kind,
                allowed=allowed if kind in ("enum", "int", "bool", "bool_list") and option.type != "bool_list" else None,
                relevance=option.relevance,
                related_errors=option.related_error_codes,
                note="; ".join(option.product_notes),
                source=option.source,
            )
    for other in tbl.atc_options_extra.get("other_flags", ()):
        kind = other.get("type")
        flags[other["name"]] = FlagInfo(
            name=other["name"],
            kind="bool_optional" if kind == "bool" else kind,
            allowed=None,
            relevance=other.get("relevance"),
            related_errors=tuple(other.get("related_error_codes") or ()),
            note=other.get("note") or "",
            source=other["source"],
        )
    # Overrides that replace more than the type (--help: an optional-argument bool).
    for name, override in overrides.items():
        if name in flags and "relevance" in override:
            flags[name] = replace(flags[name], kind=override["type"], allowed=None, relevance=override["relevance"],
                                  related_errors=tuple(override["related_error_codes"]), note=override["note"])
    errors = tbl.atc_options_extra["flag_value_errors"]
    for name, info in flags.items():
        flags[name] = replace(info, value_error=_value_error(name, info.kind, errors))
    tbl._atccheck_known_flags = flags  # type: ignore[attr-defined]  # parsed once per table set
    return flags


def valid_soc_names(tbl: Tables | None = None) -> dict[str, str]:
    """Every --soc_version literal ATC accepts (case-sensitive) to its product family."""
    tbl = tbl or tables()
    names: dict[str, str] = {}
    for family in tbl.atc_options_extra.get("soc_version_families", ()):
        for value in family["values"]:
            names[value] = family["product"]
    return names


def soc_source(tbl: Tables | None = None) -> str:
    tbl = tbl or tables()
    return tbl.atc_options_extra.get("soc_version_source", OPTIONS_TABLE)


def precision_values(tbl: Tables | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(--precision_mode values, --precision_mode_v2 values) from the option table."""
    tbl = tbl or tables()
    v1 = tbl.atc_options["--precision_mode"].allowed_values or ()
    v2 = tbl.atc_options["--precision_mode_v2"].allowed_values or ()
    return tuple(v1), tuple(v2)


def gear_limits(soc_gear_max: int | None, tbl: Tables | None = None) -> tuple[int, int]:
    """(minimum, maximum) gear count: limits.json gear_count_min, the chip's gear_max."""
    tbl = tbl or tables()
    low = tbl.limit("gear_count_min")
    high = soc_gear_max or tbl.limit("gear_count_max")
    return low, high


def error_title(code: str | None, tbl: Tables | None = None) -> str | None:
    """The catalogued message template of an ATC error code, if atccheck has it."""
    if not code:
        return None
    tbl = tbl or tables()
    entry = tbl.atc_errors.get(code)
    return entry.template if entry else None
