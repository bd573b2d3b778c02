"""unresolved-placeholder: A shell variable or ``<placeholder>`` left in a value: empty or literal when ATC reads it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.facts import required_flags
from atccheck.atc.lint.parse import PLACEHOLDER
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class UnresolvedPlaceholder(CommandRule):
    """A shell variable or ``<placeholder>`` left in a value: empty or literal when ATC reads it.

    ## What it does
    Finds ``$VAR``, ``${VAR}`` and command substitutions in flag values (the shell replaces them;
    unset, they become empty) and ``<name>`` placeholders (error: never a real value, and
    unquoted the shell reads ``<`` and ``>`` as redirections).

    ## Why
    An unset variable in a required flag (``--soc_version``, ``--output``, ``--model``) gives ATC
    an empty value, and it stops with E10054; elsewhere the flag is silently empty. A ``<name>``
    left from a template is passed literally or breaks the command.

    ## Example
    ``--soc_version=Ascend${chip_name}``; ``--output=<name>``.

    ## Fix
    Write the real value, or make sure the variable is set before the command runs.

    ## Facts
    ``atc_error_codes.json`` E10054 (a required parameter is empty); POSIX shell parameter
    expansion and redirection; ``notes/atc_cli.md`` rule 3.
    """

    code = "AC510"
    name = "unresolved-placeholder"
    severity = Severity.WARNING
    atc_error = "E10054"
    stage = "values"
    precedence = 20

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        for occurrence in cmd.occurrences:
            word = occurrence.word
            if word is None or occurrence.value is None:
                continue
            required = occurrence.flag in dict(required_flags())
            for expansion in word.expansions:
                if expansion not in occurrence.value:
                    continue
                empty = "an empty value (E10054 for a required flag)" if required else "an empty value"
                ctx.report(cls, occurrence.flag,
                           f"{occurrence.flag} contains '{expansion}': the shell substitutes it, and when it is "
                           f"unset ATC gets {empty}", hint=f"write the real value, or make sure {expansion} is set",
                           atc_error="E10054" if required else None, data={"placeholder": expansion})
            for match in PLACEHOLDER.finditer(occurrence.value):
                ctx.report(cls, occurrence.flag,
                           f"{occurrence.flag} contains the placeholder '{match.group(0)}'"
                           + ("; unquoted, the shell reads '<' and '>' as redirections" if not word.quoted else ""),
                           hint="replace the placeholder with the real value", atc_error=None,
                           severity=Severity.ERROR, data={"placeholder": match.group(0)})
