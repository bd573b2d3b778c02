"""The target of a check: chip (``--soc_version``), CANN profile and precision mode."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from atccheck.errors import UsageError
from atccheck.tables import Profile, Soc, Tables, tables

# The defaults are the tables': the profile marked default, and ATC's own --precision_mode default.
DEFAULT_PROFILE = tables().default_profile.id
DEFAULT_PRECISION_MODE = tables().default_precision_mode

# How each --precision_mode / --precision_mode_v2 value treats float32 compute.
# Source: atc_options.json --precision_mode value_meaning and --precision_mode_v2 mapping_to_v1.
PRECISION_CLASSES = {
    "force_fp16": "fp16",
    "fp16": "fp16",
    "allow_fp32_to_fp16": "prefer-fp32",
    "allow_fp32_to_bf16": "prefer-fp32",
    "force_fp32": "fp32",
    "cube_fp16in_fp32out": "fp32",
    "allow_mix_precision": "mixed",
    "allow_mix_precision_fp16": "mixed",
    "allow_mix_precision_bf16": "mixed",
    "mixed_float16": "mixed",
    "mixed_bfloat16": "mixed",
    "mixed_hif8": "mixed",
    "cube_hif8": "mixed",
    "must_keep_origin_dtype": "origin",
    "origin": "origin",
}


@dataclass(frozen=True)
class Target:
    soc: Soc
    profile: Profile
    precision_mode: str = DEFAULT_PRECISION_MODE

    @property
    def precision_class(self) -> str:
        """fp16 (float32 compute cast to float16), origin, fp32, prefer-fp32 or mixed."""
        return PRECISION_CLASSES[self.precision_mode]

    @property
    def casts_fp32_to_fp16(self) -> bool:
        return self.precision_class in ("fp16", "mixed")

    def describe(self) -> str:
        return f"{self.soc.name}, CANN {self.profile.id}, {self.precision_mode}"

    def to_dict(self) -> dict[str, str]:
        """The ``target`` object of atccheck's JSON documents (check, fix, atc-precheck)."""
        return {"soc": self.soc.name, "cann": self.profile.id, "precision_mode": self.precision_mode}


def closest(word: str, choices: list[str], n: int = 3) -> list[str]:
    lowered = {c.lower(): c for c in choices}
    return [lowered[m] for m in difflib.get_close_matches(word.lower(), list(lowered), n=n, cutoff=0.5)]


def resolve_soc(name: str, tbl: Tables | None = None) -> Soc:
    """ATC's spelling of a --soc_version name given in any case; UsageError with the closest valid ones."""
    tbl = tbl or tables()
    by_lower = {soc.lower(): soc for soc in tbl.socs}
    found = by_lower.get(name.strip().lower())
    if found is None:
        raise UsageError(_unknown_soc_message(name.strip(), tbl))
    return tbl.socs[found]


def _atc_soc_names(tbl: Tables) -> dict[str, str]:
    """Every --soc_version name ATC accepts (atc_options.json), lower-cased, with its product line."""
    return {
        value.lower(): family["product"]
        for family in tbl.atc_options_extra["soc_version_families"]
        for value in family["values"]
    }


def known_invalid_soc(value: str, entries: Sequence[str]) -> str | None:
    """The remark of the atc_options.json entry naming ``value`` as invalid for ATC, or None.

    Entries read ``"Ascend910_93 / Ascend950 (short names used inside code)"``: names split by
    " / ", then a remark in parentheses.
    """
    for entry in entries:
        names, _, remark = entry.partition("(")
        if value in (n.strip() for n in names.split("/")):
            return remark.rstrip(")").strip() or "listed as invalid"
    return None


def _unknown_soc_message(name: str, tbl: Tables) -> str:
    """Why NAME is refused: a chip ATC knows but atccheck has no kernel facts for, a product line
    named without its model suffix, or a typo (with the closest valid names)."""
    atc_names = _atc_soc_names(tbl)
    lowered = name.lower()
    if lowered in atc_names:
        return (
            f"--soc {name} is a valid ATC --soc_version ({atc_names[lowered]}), but atccheck has no kernel "
            f"facts for it yet; run 'atccheck targets' for the chips it can check"
        )
    line = sorted({product for key, product in atc_names.items() if key.startswith(lowered)})
    if len(lowered) >= 7 and line and not any(s.lower().startswith(lowered) for s in tbl.socs):
        return (
            f"--soc {name} names a product line, not a --soc_version ({'; '.join(line)}), and atccheck has no "
            f"kernel facts for it yet; run 'atccheck targets' for the chips it can check"
        )
    remark = known_invalid_soc(name, tbl.atc_options_extra.get("soc_version_not_valid", ()))
    if remark is not None:
        return f"--soc {name} is not a valid ATC --soc_version ({remark}); run 'atccheck targets' for the valid names"
    near = closest(name, sorted(tbl.socs))
    hint = f"; did you mean {', '.join(near)}?" if near else "; run 'atccheck targets' for the list"
    return f"unknown --soc '{name}'{hint}"


def soc_name_note(soc: Soc, tbl: Tables | None = None) -> str | None:
    """A note for a --soc name that reads like another chip line: 'Ascend910B' is ATC's legacy name of
    a first-generation Ascend 910 (ascend910 kernels), not of the Ascend 910B series (Ascend910B1..B4)."""
    tbl = tbl or tables()
    # A lookalike is the same name with a model number added (Ascend910B -> Ascend910B1) in
    # another kernel family; Ascend310 -> Ascend310P3 adds a series letter and confuses nobody.
    lookalikes = sorted(
        other.name for other in tbl.socs.values()
        if other.name.lower().startswith(soc.name.lower())
        and other.name[len(soc.name):][:1].isdigit()
        and other.kernel_family != soc.kernel_family
    )
    if not lookalikes:
        return None
    lines = sorted({tbl.socs[n].product for n in lookalikes})
    return (
        f"{soc.name} is a chip of the {soc.product} line ({soc.kernel_family} kernels); "
        f"for {'; '.join(lines)} use {', '.join(lookalikes)}"
    )


def resolve_profile(name: str, tbl: Tables | None = None) -> Profile:
    """A CANN profile by id ('8.0') or by a release that starts with it ('8.0.RC2', '6.0.1')."""
    tbl = tbl or tables()
    text = name.strip()
    if text in tbl.profiles:
        return tbl.profiles[text]
    for pid, profile in tbl.profiles.items():
        if text.startswith(pid + "."):
            return profile
    raise UsageError(f"unknown --cann '{name}'; choose one of {', '.join(sorted(tbl.profiles))}")


def resolve_precision_mode(mode: str, soc: Soc, profile: Profile, tbl: Tables | None = None) -> str:
    tbl = tbl or tables()
    if mode not in PRECISION_CLASSES:
        near = closest(mode, sorted(PRECISION_CLASSES))
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise UsageError(f"unknown --precision-mode '{mode}'{hint}")
    extra = tbl.atc_options_extra
    if mode in extra["precision_bf16_values"] and not soc.bf16_precision:
        raise UsageError(f"--precision-mode {mode} needs a chip with bf16 support; {soc.name} has none")
    if mode in extra["precision_hif8_values"]:
        raise UsageError(f"--precision-mode {mode} is only for Ascend 950 chips, not {soc.name}")
    v2_only = {"fp16", "origin", "mixed_float16", "mixed_bfloat16", "mixed_hif8", "cube_hif8"}
    if mode in v2_only and not profile.precision_mode_v2:
        raise UsageError(f"--precision-mode {mode} is a --precision_mode_v2 value, which CANN {profile.id} does not have")
    return mode


def resolve_target(
    soc: str,
    cann: str = DEFAULT_PROFILE,
    precision_mode: str = DEFAULT_PRECISION_MODE,
    tbl: Tables | None = None,
) -> Target:
    tbl = tbl or tables()
    soc_info = resolve_soc(soc, tbl)
    profile = resolve_profile(cann, tbl)
    mode = resolve_precision_mode(precision_mode, soc_info, profile, tbl)
    return Target(soc=soc_info, profile=profile, precision_mode=mode)
