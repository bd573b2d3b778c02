"""What a command rule reads besides the parsed command, and where it reports.

:class:`CommandContext` holds one parsed ``atc`` command's surroundings (the tables, the
flags ATC's parser knows, the CANN profile, the model when given) and the readings several
rules share, each made once: the chip the command targets (:attr:`CommandContext.soc`) and the
``--input_shape`` value (:attr:`CommandContext.input_shape`). :class:`Collector` gathers the
findings of every command of a script: a rule reports through :meth:`CommandContext.report`.
:attr:`CommandContext.files` says where the files a command names are looked up;
:mod:`atccheck.atc.lint.files` reads them for the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atccheck.atc.facts import PARSER_SOURCE, FlagInfo, valid_soc_names
from atccheck.atc.lint.parse import Occurrence, ParsedCommand
from atccheck.findings import Finding, Location, Severity
from atccheck.model.input_shape import Problem, ShapeEntry, check_names_and_ranks, model_inputs, parse_input_shape
from atccheck.target import known_invalid_soc

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.atc.command_files import FileBase
    from atccheck.atc.lint.rule import CommandRule
    from atccheck.tables import Profile, Soc, Tables

COMMAND_GRAPH = "atc-command"  # Location.graph of every lint finding: the place is an option, not a node
DEFAULT = "default"  # report(atc_error=DEFAULT): the rule's own atc_error


class Collector:
    """The findings of every command of one text, in the order the rules report them."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []

    def add(self, rule: type[CommandRule], option: str | None, message: str, *, hint: str, line: int,
            source: str = PARSER_SOURCE, atc_error: str | None = DEFAULT, severity: Severity | None = None,
            data: dict[str, Any] | None = None) -> None:
        self.findings.append(rule.finding(
            Location(graph=COMMAND_GRAPH, node=option),
            message,
            hint=hint,
            source=source,
            atc_error=rule.atc_error if atc_error == DEFAULT else atc_error,
            severity=severity,
            data={**(data or {}), "line": line},
        ))


@dataclass(frozen=True)
class ShapeReading:
    """``--input_shape`` as ATC reads it, once for every rule that judges it.

    ``syntax`` are the value's own problems, ``names`` those of its input names and ranks
    against the model. ``settled`` is False when the value itself is wrong: the checks that
    build on it (gears, dynamic shapes, missing inputs) would only restate the mistake.
    """

    occurrence: Occurrence | None
    value: str | None  # the value without its quotes (None when absent or holding an expansion)
    entries: tuple[ShapeEntry, ...]
    syntax: tuple[Problem, ...]
    names: tuple[Problem, ...]
    settled: bool


@dataclass(frozen=True)
class CommandContext:
    """One parsed command's surroundings; rules read it and report through :meth:`report`."""

    cmd: ParsedCommand
    collector: Collector
    tables: Tables
    flags: dict[str, FlagInfo]
    profile: Profile | None
    model: onnx.ModelProto | None
    model_path: str | None
    fallback_soc: Soc | None = None  # the chip to assume when --soc_version names none (``--soc``)
    onnx_given: bool = False  # a model is given, or the lint was told its path ends in .onnx
    # where the command's relative paths are looked up (atccheck.atc.lint.files reads the files)
    files: FileBase | None = None
    _cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def report(self, rule: type[CommandRule], option: str | None, message: str, *, hint: str,
               source: str = PARSER_SOURCE, atc_error: str | None = DEFAULT, severity: Severity | None = None,
               data: dict[str, Any] | None = None, line: int | None = None) -> None:
        """A finding of ``rule`` at ``option`` (a flag, or None for the whole command)."""
        self.collector.add(rule, option, message, hint=hint, line=self.cmd.line if line is None else line,
                           source=source, atc_error=atc_error, severity=severity, data=data)

    def report_problem(self, rule: type[CommandRule], problem: Problem, hint: str, message: str | None = None) -> None:
        """A broken ATC rule (``atccheck.model.input_shape`` / ``atccheck.atc.spec``) as a finding of ``rule``."""
        self.report(rule, problem.option, message or problem.message, hint=hint, atc_error=problem.atc_error,
                    source=problem.source)

    @property
    def onnx_model(self) -> bool:
        """The model is ONNX: given, or named by the lint or by ``--model`` with an .onnx path."""
        return self.onnx_given or (self.cmd.value("--model") or "").endswith(".onnx")

    @property
    def soc(self) -> Soc | None:
        """The chip the value checks assume: the one ``--soc_version`` names, else ``--soc``."""
        if "soc" not in self._cache:
            self._cache["soc"] = named_chip(self.cmd, self.tables, self.profile) or self.fallback_soc
        return self._cache["soc"]  # type: ignore[no-any-return]

    @property
    def input_shape(self) -> ShapeReading:
        if "shape" not in self._cache:
            self._cache["shape"] = read_input_shape(self.cmd, self.model)
        return self._cache["shape"]  # type: ignore[no-any-return]


def named_chip(cmd: ParsedCommand, tbl: Tables, profile: Profile | None) -> Soc | None:
    """The chip ``--soc_version`` names, as the checks after it take it: a valid name's facts; a
    name that differs only in case (ATC rejects it, the user's chip is clear); nothing for a name
    the facts tie to the target release (it may be valid there) or for any other value."""
    occurrence = cmd.last("--soc_version")
    if occurrence is None or not occurrence.value or occurrence.has_expansion:
        return None
    value = occurrence.value
    names = valid_soc_names(tbl)
    if value in names:
        return tbl.socs.get(value)
    remark = known_invalid_soc(value, tbl.atc_options_extra.get("soc_version_not_valid", ()))
    if remark is not None and profile is not None and release_of_remark(remark) == profile.id:
        return None
    by_lower = {n.lower(): n for n in names}
    return tbl.socs.get(by_lower.get(value.lower(), ""), None)


def release_of_remark(remark: str) -> str | None:
    """The CANN release an invalid-name entry's remark ties the name to ("... in very early CANN 5.0
    material"), or None."""
    import re

    match = re.search(r"CANN (\d+\.\d+)", remark)
    return match.group(1) if match else None


def read_input_shape(cmd: ParsedCommand, model: onnx.ModelProto | None) -> ShapeReading:
    occurrence = cmd.last("--input_shape")
    if occurrence is None or occurrence.value is None:
        return ShapeReading(occurrence, None, (), (), (), True)
    if not occurrence.has_expansion:
        value = occurrence.value.strip('"')
        entries, syntax = parse_input_shape(value)
        names = check_names_and_ranks(entries, model) if model is not None else []
        settled = model is None or not (syntax or names)
        return ShapeReading(occurrence, value, tuple(entries), tuple(syntax), tuple(names), settled)
    if model is None:
        return ShapeReading(occurrence, None, (), (), (), True)
    # '${bs}' in the dims hides the sizes, not the names: a wrong name is still E10016
    named = [ShapeEntry(name, ()) for name in _names_around_expansions(occurrence.value.strip('"'))]
    names = [p for p in check_names_and_ranks(named, model) if p.kind == "input-name"]
    return ShapeReading(occurrence, None, (), (), tuple(names), not names)


def _names_around_expansions(value: str) -> list[str]:
    """The input names of an --input_shape value whose dims hold shell expansions; names that
    are themselves expansions (or a positional value) give nothing to check."""
    names = []
    for part in value.split(";"):
        name, colon, _ = part.rpartition(":")
        name = name.strip()
        if colon and name and "$" not in name and "`" not in name:
            names.append(name)
    return names


def complete_shapes(entries: Sequence[ShapeEntry], model: onnx.ModelProto | None) -> list[ShapeEntry]:
    """The shapes ATC ends up with: the given entries plus the model dims of inputs not named."""
    if model is None or any(e.name is None for e in entries):
        return list(entries)
    given = {e.name for e in entries}
    rest = [ShapeEntry(i.name, i.atc_dims) for i in model_inputs(model) if i.name not in given and i.dims is not None]
    return list(entries) + rest


def dynamic_shape_problems(ctx: CommandContext) -> tuple[list[ShapeEntry], list[Problem]]:
    """Without a gear option, -1 or ranges in ``--input_shape`` ask for dynamic-shape compilation: the
    complete shapes ATC ends up with, and what the chip and the release say to that (once per command)."""
    if "dynamic" not in ctx._cache:
        from atccheck.atc.facts import gear_flags
        from atccheck.atc.spec import check_dynamic_mode

        reading = ctx.input_shape
        complete: list[ShapeEntry] = []
        problems: list[Problem] = []
        if reading.settled and reading.entries and not any(ctx.cmd.has(f) for f in gear_flags()):
            complete = complete_shapes(reading.entries, ctx.model)
            problems = check_dynamic_mode(complete, ctx.soc, ctx.profile)
        ctx._cache["dynamic"] = (complete, problems)
    return ctx._cache["dynamic"]  # type: ignore[no-any-return]
