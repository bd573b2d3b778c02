"""invalid-soc-version: A ``--soc_version`` literal that no platform config has (wrong case, bare ``Ascend``, ``Ascendxxx``, a short name)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from atccheck.atc.facts import OPTIONS_TABLE, soc_source, valid_soc_names
from atccheck.atc.lint.context import release_of_remark
from atccheck.atc.lint.parse import close_matches
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register
from atccheck.target import known_invalid_soc

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class InvalidSocVersion(CommandRule):
    """A ``--soc_version`` literal that no platform config has (wrong case, bare ``Ascend``, ``Ascendxxx``, a short name).

    ## What it does
    Compares the literal with the valid names of the option table (the ``platform_config/<SoC>.ini``
    files of the installed package). A wrong case, ``Ascend`` alone, a template placeholder
    (``xxx``) and the short names used inside CANN code (``Ascend910_93``, ``Ascend950``) are
    errors with the reason and the closest names. A valid name atccheck has no chip facts for is
    info (chip checks are skipped); a name the facts tie to the chosen release (``Ascend710`` under
    ``--cann 5.0``) is a warning, as that release's ATC may accept it.

    ## Why
    Names are case-sensitive and ATC knows only the names it has a platform config for: with any
    other name it cannot set up the target and the conversion fails. The error code ATC prints for
    it is not in the catalogue, so the finding names none (``ATC: fails, error code not
    catalogued``). A name that exists but is the wrong chip converts and fails only at load time
    (runtime EE1001), which no lint can see.

    ## Example
    ``--soc_version=ascend310p3`` (write ``Ascend310P3``); ``--soc_version=Ascend``;
    ``--soc_version=Ascend910_93``.

    ## Fix
    Use the exact name of the chip that will run the model: ``Ascend`` + the Name column of
    ``npu-smi info`` (``<Chip Name>_<NPU Name>`` on Atlas A3 and 950); ``atccheck targets`` lists
    the names.

    ## Facts
    ``shared/reference/atc_options.json`` ``soc_versions`` (valid names, ``not_valid_for_atc``,
    case-sensitive) and ``--soc_version``; ``notes/atc_cli.md`` rules 6 and 7.
    """

    code = "AC509"
    name = "invalid-soc-version"
    severity = Severity.ERROR
    atc_error = None
    stage = "values"
    precedence = 80

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        occurrence = cmd.last("--soc_version")
        if occurrence is None or occurrence.value is None or occurrence.has_expansion or not occurrence.value:
            return
        tbl, profile, value = ctx.tables, ctx.profile, occurrence.value
        names = valid_soc_names(tbl)
        source = soc_source(tbl)
        if value in names:
            if tbl.socs.get(value) is None:
                ctx.report(cls, "--soc_version",
                           f"'{value}' is a valid ATC target ({names[value]}), but atccheck has no facts for it: chip "
                           "checks are skipped", hint="run the check on real hardware with 'atc --mode=3'",
                           atc_error=None, severity=Severity.INFO, source=source)
            return
        by_lower = {n.lower(): n for n in names}
        near = list(close_matches(value, tuple(names), 0.6))
        if value.lower() in by_lower:
            reason = f"--soc_version is case-sensitive: write {by_lower[value.lower()]}"
        elif (remark := known_invalid_soc(value, tbl.atc_options_extra.get("soc_version_not_valid", ()))) is not None:
            if profile is not None and release_of_remark(remark) == profile.id:
                # an earlier name of the release the command targets: the facts cannot tell, so no error
                ctx.report(cls, "--soc_version",
                           f"'{value}' is not a current --soc_version, but the facts record it for CANN {profile.id}: "
                           f"{remark}; that release's ATC may accept it, and atccheck checks no chip facts for it",
                           hint="if ATC rejects it, use the current name ('atccheck targets' lists them)",
                           atc_error=None, severity=Severity.WARNING,
                           source=OPTIONS_TABLE + " soc_versions.not_valid_for_atc",
                           data={"value": value, "suggestions": near})
                return
            reason = f"not an ATC target: {remark}"
        elif re.fullmatch(r"(?i)ascend", value):
            reason = "'Ascend' alone names no chip: append the model, e.g. Ascend310P3 (see 'npu-smi info')"
        elif re.search(r"(?i)x{2,}", value):
            reason = "a template placeholder ('xxx') left in: put the chip name from 'npu-smi info'"
        else:
            reason = "no platform config has this name" + (f"; did you mean {', '.join(near)}?" if near else "")
        short_names = [n for n in names if n.startswith(value) and n != value]
        if short_names and "case-sensitive" not in reason:
            reason += f" (the family has {', '.join(short_names[:4])}{', ...' if len(short_names) > 4 else ''})"
        ctx.report(cls, "--soc_version", f"'{value}' is not a --soc_version: {reason}",
                   hint="use the exact name of the chip that will run the model ('atccheck targets' lists them)",
                   atc_error=None, source=source, data={"value": value, "suggestions": near})
