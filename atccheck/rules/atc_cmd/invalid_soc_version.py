"""invalid-soc-version: A ``--soc_version`` literal that no platform config has (wrong case, bare ``Ascend``, ``Ascendxxx``, a short name)."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


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
