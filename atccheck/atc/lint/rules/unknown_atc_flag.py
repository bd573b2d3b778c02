"""unknown-atc-flag: A flag ATC's option parser does not register, or an abbreviation that fits several flags."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.facts import UNKNOWN_FLAG
from atccheck.atc.lint import parse
from atccheck.atc.lint.parse import close_matches
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext


@register
class UnknownAtcFlag(CommandRule):
    """A flag ATC's option parser does not register, or an abbreviation that fits several flags.

    ## What it does
    Resolves every ``--name`` (after ATC's rewrites: one dash before two letters becomes two, ``-``
    inside the name becomes ``_``) against the flags of the option table. A name that is neither
    a flag nor the unique prefix of one is reported, with the nearest flag names as a hint; an
    ambiguous prefix lists the flags it starts.

    ## Why
    getopt_long stops at the first unknown flag and ATC exits with ``ERROR: unknown command line
    flag 'NAME'`` before it reads the model: nothing is converted.

    ## Example
    ``--input_shapes="x:1,3,224,224"`` (one ``s`` too many); ``--out=net``, which starts both
    ``--output`` and ``--out_nodes``.

    ## Fix
    Spell the flag as ``atc --help`` lists it; the hint names the closest flags.

    ## Facts
    ``hicann/ge@ffdcbc9f7:api/atc/cmd_flag_info.cc`` (getopt_long, unknown flag message); the flag list is ``op_tables/atc_options.json``,
    built from ``shared/reference/atc_options.json``; ``notes/atc_cli.md`` rule 2.
    """

    code = "AC501"
    name = "unknown-atc-flag"
    severity = Severity.ERROR
    atc_error = UNKNOWN_FLAG
    stage = "parser"
    event = parse.UnknownFlag

    @classmethod
    def report(cls, event: parse.UnknownFlag, ctx: "CommandContext") -> None:
        name, candidates = event.name, list(event.candidates)
        near = candidates or list(close_matches(name, tuple(ctx.flags), 0.7))
        hint = f"did you mean {', '.join(near[:3])}?" if near else "run 'atc --help' for the flags"
        what = "is ambiguous: it starts " + ", ".join(candidates[:4]) if len(candidates) > 1 else "is not a flag"
        ctx.report(cls, name, f"'{name}' {what}; ATC stops with \"ERROR: unknown command line flag "
                   f"'{name.lstrip('-')}'\"", hint=hint, data={"flag": name, "candidates": candidates[:5]})
