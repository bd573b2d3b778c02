"""What atccheck knows about ATC's command line, read from ``op_tables/atc_options.json``.

One place turns the option table into the questions the generator and the linter ask:
which flags ATC's parser knows, which values an enum flag takes and which error a bad value
raises, which ``--soc_version`` literals exist, and which precision values belong to which
flag. Nothing here is a literal fact of its own except where a comment names the source.
"""

from __future__ import annotations

from dataclasses import dataclass

from atccheck.tables import Tables, tables

OPTIONS_TABLE = "op_tables/atc_options.json"
PARSER_SOURCE = "hicann/ge@ffdcbc9f7:api/atc/cmd_flag_info.cc"

# The flags every ONNX build (mode 0) needs, and the error each one's absence raises.
# Source: atc_options.json dependency_rules (E10007 for --framework, E10054 for the others).
REQUIRED_FLAGS = {
    "0": ("--model", "--framework", "--output", "--soc_version"),
    "3": ("--model", "--framework", "--soc_version"),
}
GEAR_FLAGS = ("--dynamic_batch_size", "--dynamic_image_size", "--dynamic_dims")
ONNX_FRAMEWORK = "5"

# Which error code a value outside an enum raises, by flag (cmd_flag_info.cc PrintValueError):
# switches print E10006, --log E10010, --framework E10007, booleans E10005, the rest E10001.
_ENUM_ERROR = {"--log": "E10010", "--framework": "E10007"}
_SWITCH_FLAGS = frozenset({
    "--status_check", "--deterministic", "--external_weight", "--display_model_info",
    "--atomic_clean_policy", "--dump_mode", "--disable_reuse_memory", "--sparsity",
})


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

    @property
    def takes_value(self) -> bool:
        """Required argument (``--name value`` works) unless the flag is a switch without one."""
        return self.kind not in ("flag", "bool_optional")

    @property
    def value_error(self) -> str:
        """The ATC code a value outside ``allowed`` raises."""
        if self.name in _ENUM_ERROR:
            return _ENUM_ERROR[self.name]
        if self.name in _SWITCH_FLAGS:
            return "E10006"
        if self.kind == "bool":
            return "E10005"
        return "E10001"


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
    for option in tbl.atc_options.values():
        # Combined entries: '--help / -h', '--op_bank_path / --mdl_bank_path'.
        for name in (part.strip() for part in option.name.split(" / ")):
            if not name.startswith("--"):
                continue  # '-h' is the short form of --help
            allowed = tuple(_clean_value(v) for v in option.allowed_values) if option.allowed_values else None
            kind = option.type
            if kind and "|" in kind:
                kind = "string"
            if name == "--enable_compress_weight":
                allowed, kind = ("true", "false"), "bool"
            elif name == "--compress_weight_conf":
                allowed, kind = None, "path"
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
    # --help is registered as an optional-argument bool: '--help value' does not take the value.
    if "--help" in flags:
        flags["--help"] = FlagInfo("--help", "bool_optional", None, "info", (), "", flags["--help"].source)
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
