"""gear-rule: A dynamic gear option (``--dynamic_batch_size``, ``--dynamic_image_size``, ``--dynamic_dims``) that breaks ATC's gear rules."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


@register
class GearRule(CommandRule):
    """A dynamic gear option (``--dynamic_batch_size``, ``--dynamic_image_size``, ``--dynamic_dims``) that breaks ATC's gear rules.

    ## What it does
    Checks the gear options against the rules ATC enforces: one gear option at most, value
    syntax, where the -1s of ``--input_shape`` must be for each option, the number of gears
    (per chip) and of values per gear, repeated gears, no ranges with gears.

    ## Why
    ATC stops before compiling, with the code of the broken rule: E10009 (two gear options),
    E10018/E10031 (batch axis), E10019/E10020 (image size), E10003/E10046 (dims per gear),
    E10035/E10036 (gear count), E10037, E10038, E10039, E10040, E10004, E10012.

    ## Example
    ``--dynamic_batch_size="4"`` (one gear: at least two are needed, E10035).

    ## Fix
    Follow the gear rules in ``docs/atc.md``, or let ``atccheck atc-cmd MODEL --soc SOC`` write the
    command.

    ## Facts
    ``notes/atc_cli.md`` rules 13-16; ``hicann/ge@ffdcbc9f7:compiler/graph/preprocess/multi_batch_options.cc``;
    ``op_tables/limits.json`` (gear counts per chip).
    """

    code = "AC519"
    name = "gear-rule"
    severity = Severity.ERROR
    atc_error = "E10009"
    stage = "values"
