"""unquoted-shell-separator: An unquoted ``;`` (or ``|``, ``&``) inside a value ends the atc command early."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint import parse
from atccheck.atc.lint.parse import lost_required
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext


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
    event = parse.SeparatorCut

    @classmethod
    def report(cls, event: parse.SeparatorCut, ctx: "CommandContext") -> None:
        flag = event.flag
        message = (f"an unquoted '{event.separator}' in the value of {flag} ends the atc command: ATC sees "
                   f"'{event.cut}' and the shell runs '{event.first}' as another command")
        if event.lost:
            message += f"; lost to ATC: {', '.join(event.lost)}"
        required = lost_required(event)
        if not required:
            message += ("; what ATC reports then depends on the lost part (an input left at -1 gives E10001, "
                        "a missing entry leaves the model's dims)")
        ctx.report(cls, flag if flag.startswith("--") else None, message,
                   hint=f"wrap the whole value in double quotes: {flag}=\"...\"",
                   source="shared/reference/notes/atc_cli.md rule 3; E10054",
                   atc_error="E10054" if required else None,
                   data={"separator": event.separator, "lost_flags": list(event.lost)}, line=event.line)
