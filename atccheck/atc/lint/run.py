"""Lint every ``atc`` command of a text, stage by stage: the shell, ATC's parser, the values.

:func:`lint_command` splits the text as the shell does, finds the atc commands, and runs the
command rules in stage order: the ``shell`` rules on the cuts the shell made (every command of
the text), then, for each command, the ``parser`` rules on the events of ATC's option parser in
the order the words came, then the ``values`` rules by precedence, checking the values against
the facts (and the model, when given).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atccheck.atc.command_files import FileBase
from atccheck.atc.facts import known_flags
from atccheck.atc.lint.context import Collector, CommandContext
from atccheck.atc.lint.parse import ParsedCommand, atc_commands, parse_atc_words
from atccheck.atc.lint.rule import CommandRule
from atccheck.atc.lint.rules import command_rules
from atccheck.atc.shell import ShellSyntaxError, split_commands
from atccheck.errors import UsageError
from atccheck.findings import Finding, Severity
from atccheck.tables import tables
from atccheck.target import DEFAULT_PROFILE, resolve_profile, resolve_soc

if TYPE_CHECKING:  # pragma: no cover
    import onnx


@dataclass(frozen=True)
class LintResult:
    commands: tuple[ParsedCommand, ...]
    findings: tuple[Finding, ...]

    def counts(self) -> dict[str, int]:
        counts = {s.value: 0 for s in Severity}
        for f in self.findings:
            counts[f.severity.value] += 1
        return counts

    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)


def lint_command(
    text: str,
    model: "onnx.ModelProto | None" = None,
    *,
    model_path: str | None = None,
    soc: str | None = None,
    cann: str = DEFAULT_PROFILE,
    files: FileBase | None = None,
) -> LintResult:
    """Lint every ``atc`` command in ``text`` (a one-liner or a script).

    ``model`` enables the checks against the graph (input names, ranks, dynamic inputs);
    ``soc`` is the chip to assume when the command's own ``--soc_version`` is missing or invalid;
    ``cann`` picks the release (flags such as --precision_mode_v2 exist only from 7.0 on);
    ``files`` says where relative paths in the command are looked up (default: the current
    directory; a script's own directory too for ``--lint-file``).
    Raises UsageError when the text holds no atc command or is not complete shell.
    """
    tbl = tables()
    profile = resolve_profile(cann, tbl)
    fallback_soc = resolve_soc(soc, tbl) if soc else None
    try:
        commands = split_commands(text)
    except ShellSyntaxError as exc:
        raise UsageError(f"the command is not complete shell text: {exc}") from None
    found, cuts = atc_commands(commands)
    if not found:
        raise UsageError("no atc command found (the program must be 'atc' or a path ending in /atc)")
    flags = known_flags(tbl)
    collector = Collector()
    rules = command_rules()
    onnx_given = model is not None or (model_path or "").endswith(".onnx")
    parsed = [parse_atc_words(words, flags, line) for words, line in found]
    files = files or FileBase(os.getcwd())
    for index, cmd in enumerate(parsed):
        ctx = CommandContext(cmd, collector, tbl, flags, profile, model, model_path, fallback_soc, onnx_given, files)
        if index == 0:  # the shell's cuts, of every command, come first
            _judge_events(cuts, _stage(rules, "shell"), ctx)
        _judge_events(cmd.events, _stage(rules, "parser"), ctx)
        _check_values(cmd, _stage(rules, "values"), ctx)
    return LintResult(tuple(parsed), tuple(collector.findings))


def _stage(rules: Sequence[type[CommandRule]], stage: str) -> list[type[CommandRule]]:
    return sorted((r for r in rules if r.stage == stage), key=lambda r: (r.precedence, r.code))


def _judge_events(events: Sequence[object], rules: Sequence[type[CommandRule]], ctx: CommandContext) -> None:
    """Each event, in order, to the rules that judge its type."""
    for event in events:
        for rule in rules:
            if rule.event is not None and isinstance(event, rule.event):
                rule.report(event, ctx)


def _check_values(cmd: ParsedCommand, rules: Sequence[type[CommandRule]], ctx: CommandContext) -> None:
    """The values rules by precedence; neighbouring flag rules take each flag in turn, the first
    that reports on a flag ending its turn."""
    i = 0
    while i < len(rules):
        if not rules[i].judges_flags():
            rules[i].check(cmd, ctx)
            i += 1
            continue
        j = i
        while j < len(rules) and rules[j].judges_flags():
            j += 1
        for occurrence in cmd.occurrences:
            for rule in rules[i:j]:
                if rule.check_flag(occurrence, cmd, ctx):
                    break
        i = j
