"""unquoted-shell-separator: An unquoted ``;`` (or ``|``, ``&``) inside a value ends the atc command early."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


@register
class UnquotedShellSeparator(CommandRule):
    """An unquoted ``;`` (or ``|``, ``&``) inside a value ends the atc command early.

    ## What it does
    Finds an atc command that the shell cut at an unquoted separator when the next piece
    continues it (starts with ``--`` or looks like a shape value), and lists the flags lost to
    ATC. Redirections such as ``2>&1`` are not cuts. The value checks run on the re-joined value.

    ## Why
    The shell runs the rest as another command: ATC never sees the lost flags. When a required
    one is lost ATC stops with E10054; otherwise what ATC reports depends on what was lost (an
    input left at -1 gives E10001).

    ## Example
    ``--input_shape=a:1,3,224,224;b:1,128 --output=net`` without quotes.

    ## Fix
    Wrap the whole value in double quotes: ``--input_shape="a:1,3,224,224;b:1,128"``.

    ## Facts
    ``notes/atc_cli.md`` rule 3 (an unquoted ``;`` ends the shell command and ATC reports a
    required option as empty); ``atc_error_codes.json`` E10054.
    """

    code = "AC511"
    name = "unquoted-shell-separator"
    severity = Severity.ERROR
    atc_error = "E10054"
    stage = "shell"
