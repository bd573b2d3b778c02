"""Entry point of the ``atccheck`` command."""

from __future__ import annotations

import gc
import importlib
import sys
from typing import Any, NoReturn

try:
    import click

    from atccheck import __version__
    from atccheck.model import onnxpb
except KeyboardInterrupt:  # Ctrl-C while the command starts: the same one line as later on
    sys.stderr.write("atccheck: interrupted\n")
    sys.exit(130)

# Each subcommand lives in its own module, imported only when it runs (or when --help lists it):
# ``atccheck check`` does not pay for the fix command's imports. Add new ones here.
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("atccheck.cli.check", "check_command"),
    "targets": ("atccheck.cli.targets", "targets_command"),
    "rule": ("atccheck.cli.rule", "rule_command"),
    "config": ("atccheck.cli.config", "config_command"),
    "atc-cmd": ("atccheck.cli.atc_cmd", "atc_cmd_command"),
    "fix": ("atccheck.cli.fix", "fix_command"),
}

# One run of the command builds objects that live until it exits: imported modules (onnx, numpy),
# the support tables parsed from JSON, the model's graph. With the collector's default first
# threshold (700 net container allocations) it walks each of them at least once while they are
# built, and finds next to no garbage, since they are not garbage: ~0.05-0.08 s of CPU of a
# ResNet-50-sized check. A whole check makes ~160,000 net allocations, so with a threshold of
# 500,000 a check of one model runs no collection at all, while a long run (a folder of models,
# fix) still collects cyclic garbage, in larger steps. Objects freed by their reference count
# (most garbage) do not count toward the threshold, so memory does not grow with it.
GC_THRESHOLD = (500_000, 10, 10)


def _restore_collector(thresholds: tuple[int, ...]) -> None:
    """Put the caller's thresholds back (main() called in-process: tests, scripts) without the
    collection the lower threshold would start at once over every object the run built: they go
    to the oldest generation, as if they had survived the collections the threshold put off."""
    if gc.get_freeze_count() == 0:  # a caller's own frozen objects stay frozen
        gc.freeze()
        gc.set_threshold(*thresholds)
        gc.unfreeze()
    else:
        gc.set_threshold(*thresholds)


def usage_line(exc: click.UsageError) -> str:
    """A usage error as one line, as every atccheck error reads: ``atccheck: error: ...``, with the
    command whose --help lists what it takes (click alone prints Usage / Try / Error lines)."""
    message = " ".join(exc.format_message().split())
    message = message.replace(". (Did you mean", " (did you mean").rstrip(".")
    if message[:1].isupper() and message[1:2].islower():
        message = message[0].lower() + message[1:]
    command = exc.ctx.command_path if exc.ctx is not None else "atccheck"
    return f"atccheck: error: {message}; see '{command} --help'"


def _usage_exit(exc: click.UsageError) -> NoReturn:
    if isinstance(exc, click.exceptions.NoArgsIsHelpError):  # bare 'atccheck': the help, as click shows it
        raise exc
    click.echo(usage_line(exc), err=True)
    raise click.exceptions.Exit(exc.exit_code)


class AtccheckGroup(click.Group):
    """The command group; Ctrl-C anywhere is one line and exit 130 (click alone says 'Aborted!', exit 1);
    a usage error of any command is one line and exit 2."""

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:  # the group's own options
            _usage_exit(exc)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, attr = COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), attr), cmd_name)
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        thresholds = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLD)
        onnxpb.use_leaves()
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:  # a subcommand's options and arguments, or no such command
            _usage_exit(exc)
        except KeyboardInterrupt:
            click.echo("atccheck: interrupted", err=True)
            ctx.exit(130)
        finally:
            _restore_collector(thresholds)


@click.group(cls=AtccheckGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="atccheck")
def main() -> None:
    """Check and fix ONNX models for Huawei Ascend ATC conversion, without CANN."""
