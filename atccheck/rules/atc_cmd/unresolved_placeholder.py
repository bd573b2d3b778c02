"""unresolved-placeholder: A shell variable or ``<placeholder>`` left in a value: empty or literal when ATC reads it."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


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
