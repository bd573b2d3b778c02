"""What the command rules about named files share: find and read a flag's file, the AIPP target, reporting.

Not a rule (the registry skips modules starting with '_'). It is the one place that reads a
parsed command and the lint's context for those rules; the judging lives in
``atccheck.atc.aipp`` and ``atccheck.atc.command_files`` and in each rule's ``check``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from atccheck.atc.aipp import AippParse, AippProblem, AippTarget, aipp_facts, model_aipp_inputs, parse_aipp
from atccheck.atc.command_files import (
    FileBase,
    GraphNames,
    ResolvedFile,
    graph_names,
    parse_fp16_nodes,
    read_command_file,
    resolve_command_path,
)
from atccheck.findings import Severity

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint import CommandContext, ParsedCommand

AIPP_FLAG = "--insert_op_conf"
FILE_FLAGS = ("--keep_dtype", "--op_precision_mode", "--modify_mixlist", "--customize_dtypes", "--fusion_switch_file")
GEAR_FLAGS = ("--dynamic_batch_size", "--dynamic_image_size", "--dynamic_dims")


@dataclass(frozen=True)
class NamedFile:
    """A file a flag names: as written, where it was found, and its text (or why there is none)."""

    flag: str
    written: str
    resolved: ResolvedFile
    text: str | None
    read_problem: str | None

    @property
    def shown(self) -> str:
        return self.written


def named_file(cmd: "ParsedCommand", ctx: "CommandContext", flag: str) -> NamedFile | None:
    """The file ``flag`` names in ``cmd``, or None when the flag is absent or empty (ATC then ignores it)."""
    occurrence = cmd.last(flag)
    if occurrence is None or not occurrence.value:
        return None
    written = occurrence.value.strip('"').strip("'")
    if not written:
        return None
    base = ctx.files or FileBase(".")
    resolved = resolve_command_path(written, base, expand=occurrence.has_expansion)
    if resolved.path is None:
        return NamedFile(flag, written, resolved, None, None)
    read = read_command_file(resolved.path)
    return NamedFile(flag, written, resolved, read.text, read.problem)


@lru_cache(maxsize=32)
def _parse(text: str) -> AippParse:
    return parse_aipp(text)


def aipp_config(cmd: "ParsedCommand", ctx: "CommandContext") -> tuple[NamedFile, AippParse] | None:
    """The AIPP file of ``cmd`` and its parse, or None without a readable file."""
    found = named_file(cmd, ctx, AIPP_FLAG)
    if found is None or found.text is None:
        return None
    return found, _parse(found.text)


class _LastModel:
    """The answer for the last model asked about: the rules of one command ask the same question.

    Keyed on the model object itself (not an id a later model could reuse) and the rest of the key.
    """

    def __init__(self) -> None:
        self.entry: tuple[Any, Any, Any] | None = None

    def get(self, model: Any, key: Any) -> Any:
        if self.entry is not None and self.entry[0] is model and self.entry[1] == key:
            return self.entry[2]
        return None

    def put(self, model: Any, key: Any, value: Any) -> Any:
        self.entry = (model, key, value)
        return value


_INPUTS = _LastModel()
_GRAPH = _LastModel()


def aipp_target(cmd: "ParsedCommand", ctx: "CommandContext") -> AippTarget | None:
    """The model inputs and the command's other options an AIPP config is judged against (None without a model)."""
    if ctx.model is None:
        return None
    gears = any(cmd.has(f) for f in GEAR_FLAGS)
    occurrence = cmd.last("--input_shape")
    key = (occurrence.value if occurrence is not None and not occurrence.has_expansion else None, gears)
    inputs = _INPUTS.get(ctx.model, key) or _INPUTS.put(ctx.model, key, _inputs(ctx, occurrence, gears))
    fp16 = cmd.last("--input_fp16_nodes")
    fp16_nodes = tuple(parse_fp16_nodes(fp16.value)) if fp16 is not None and fp16.value else ()
    soc = ctx.soc
    profile = ctx.profile
    return AippTarget(
        inputs,
        profile=profile.id if profile is not None else None,
        kernel_release=profile.kernel_release if profile is not None else None,
        short_soc=soc.short_soc if soc is not None else None,
        input_format=cmd.value("--input_format"),
        dynamic_dims=cmd.has("--dynamic_dims"),
        dynamic_image_size=cmd.has("--dynamic_image_size"),
        fp16_nodes=fp16_nodes,
    )


def _inputs(ctx: "CommandContext", occurrence: Any, gears: bool) -> Any:
    from atccheck.atc.spec import model_inputs, parse_input_shape

    assert ctx.model is not None
    shapes: dict[str, Any] = {}
    if occurrence is not None and occurrence.value and not occurrence.has_expansion:
        entries, problems = parse_input_shape(occurrence.value.strip('"'))
        if not problems:
            ranks = {i.name: i.rank for i in model_inputs(ctx.model)}
            names = list(ranks)
            for index, entry in enumerate(entries):
                name = entry.name if entry.name is not None else (names[index] if index < len(names) else None)
                # a shape of another rank is input-rank-mismatch's finding (ATC stops there first)
                if name is not None and ranks.get(name) in (None, len(entry.dims)):
                    shapes[name] = entry.dims
    return model_aipp_inputs(ctx.model, shapes, gears)


def parsed_graph(ctx: "CommandContext") -> GraphNames | None:
    if ctx.model is None:
        return None
    key = ctx.profile.id if ctx.profile is not None else None
    found = _GRAPH.get(ctx.model, key)
    return found if found is not None else _GRAPH.put(ctx.model, key, graph_names(ctx.model, ctx.profile, ctx.tables))


def report_aipp(rule: str, problems: list[AippProblem], found: NamedFile, ctx: "CommandContext") -> None:
    """One finding per problem, on --insert_op_conf, naming the file and line."""
    for problem in problems:
        where = f"{found.shown}:{problem.line}" if problem.line else found.shown
        ctx.out.add(rule, problem.option or AIPP_FLAG, f"{where}: {problem.message}", hint=problem.hint, source=problem.source,
                    atc_error=problem.atc_error, severity=Severity(problem.severity),
                    data={"file": found.written, "file_line": problem.line, "check": problem.check,
                          "aipp_op": problem.op, "field": problem.field, **dict(problem.data)})


def aipp_problems(rule: str, cmd: "ParsedCommand", ctx: "CommandContext", judge: Any,
                  needs_target: bool = True) -> None:
    """Run ``judge(config, target, facts)`` (or ``judge(config, facts)``) on the command's AIPP file and report."""
    state = aipp_config(cmd, ctx)
    if state is None or state[1].config is None:
        return
    found, parsed = state
    assert parsed.config is not None
    facts = aipp_facts(ctx.tables)
    if needs_target:
        target = aipp_target(cmd, ctx)
        if target is None:
            return
        problems = judge(parsed.config, target, facts)
    else:
        problems = judge(parsed.config, facts)
    report_aipp(rule, problems, found, ctx)
