"""Entry point of the ``atccheck`` command."""

from __future__ import annotations

import sys

try:
    import click

    from atccheck import __version__
    from atccheck.cli.atc_cmd import atc_cmd_command
    from atccheck.cli.check import check_command
    from atccheck.cli.config import config_command
    from atccheck.cli.fix import fix_command
    from atccheck.cli.rule import rule_command
    from atccheck.cli.targets import targets_command
except KeyboardInterrupt:  # Ctrl-C while the command starts: the same one line as later on
    sys.stderr.write("atccheck: interrupted\n")
    sys.exit(130)

# Each subcommand lives in its own module; add new ones here.
COMMANDS = [check_command, targets_command, rule_command, config_command, atc_cmd_command, fix_command]


class AtccheckGroup(click.Group):
    """The command group; Ctrl-C anywhere is one line and exit 130 (click alone says 'Aborted!', exit 1)."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("atccheck: interrupted", err=True)
            ctx.exit(130)


@click.group(cls=AtccheckGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="atccheck")
def main() -> None:
    """Check and fix ONNX models for Huawei Ascend ATC conversion, without CANN."""


for _command in COMMANDS:
    main.add_command(_command)
