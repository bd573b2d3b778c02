"""What the command rules read from the files and names a command gives (AIPP, precision files, names).

The lint context says where a command's relative paths are looked up
(:attr:`~atccheck.atc.lint.context.CommandContext.files`, a :class:`~atccheck.atc.command_files.FileBase`:
the current directory, and a script's own directory with ``--lint-file``). This module reads a
command for the rules AC529-AC541, once per command however many rules ask:

- :func:`named_file`: the file a flag names, found with
  :func:`atccheck.atc.command_files.resolve_command_path` and read;
- :func:`aipp_config`: the ``--insert_op_conf`` file parsed as ATC's text parser reads it;
- :func:`aipp_target`: the model inputs and the command's other options an AIPP config is
  judged against;
- :func:`parsed_graph`: the names of the graph ATC's ONNX parser builds from the model;
- :func:`report_aipp` / :func:`aipp_problems`: AIPP problems as findings of a rule.

The judging lives in :mod:`atccheck.atc.aipp`, :mod:`atccheck.atc.command_files` and each rule's
``check``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from atccheck.atc.aipp import (
    AippParse,
    AippProblem,
    AippTarget,
    aipp_facts,
    model_aipp_inputs,
    parse_aipp,
)
from atccheck.atc.command_files import (
    FileBase,
    GraphNames,
    ResolvedFile,
    graph_names,
    parse_fp16_nodes,
    read_command_file,
    resolve_command_path,
)
from atccheck.atc.facts import gear_flags
from atccheck.findings import Severity

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.rule import CommandRule

AIPP_FLAG = "--insert_op_conf"
FILE_FLAGS = ("--keep_dtype", "--op_precision_mode", "--modify_mixlist", "--customize_dtypes", "--fusion_switch_file")


@dataclass(frozen=True)
class NamedFile:
    """A file a flag names: as written, where it was found, and its text (or why there is none)."""

    flag: str
    written: str
    resolved: ResolvedFile
    text: str | None
    read_problem: str | None


def named_file(ctx: CommandContext, flag: str) -> NamedFile | None:
    """The file ``flag`` names in the command, or None when the flag is absent or empty (ATC then ignores it)."""
    key = f"file {flag}"
    if key not in ctx._cache:
        ctx._cache[key] = _named_file(ctx, flag)
    return ctx._cache[key]  # type: ignore[no-any-return]


def _named_file(ctx: CommandContext, flag: str) -> NamedFile | None:
    occurrence = ctx.cmd.last(flag)
    if occurrence is None or not occurrence.value:
        return None
    written = occurrence.value.strip('"').strip("'")
    if not written:
        return None
    resolved = resolve_command_path(written, ctx.files or FileBase("."), expand=occurrence.has_expansion)
    if resolved.path is None:
        return NamedFile(flag, written, resolved, None, None)
    read = read_command_file(resolved.path)
    return NamedFile(flag, written, resolved, read.text, read.problem)


@lru_cache(maxsize=32)
def _parse(text: str) -> AippParse:
    return parse_aipp(text)


def aipp_config(ctx: CommandContext) -> tuple[NamedFile, AippParse] | None:
    """The command's AIPP file and its parse, or None without a readable file."""
    found = named_file(ctx, AIPP_FLAG)
    if found is None or found.text is None:
        return None
    return found, _parse(found.text)


class _LastModel:
    """The answer for the last model asked about: the commands of a script ask the same question.

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


def aipp_target(ctx: CommandContext) -> AippTarget | None:
    """The model inputs and the command's other options an AIPP config is judged against (None without a model)."""
    if ctx.model is None:
        return None
    if "aipp target" not in ctx._cache:
        ctx._cache["aipp target"] = _aipp_target(ctx)
    return ctx._cache["aipp target"]  # type: ignore[no-any-return]


def _aipp_target(ctx: CommandContext) -> AippTarget:
    cmd = ctx.cmd
    gears = any(cmd.has(f) for f in gear_flags(ctx.tables))
    reading = ctx.input_shape
    key = (reading.value, gears)
    inputs = _INPUTS.get(ctx.model, key) or _INPUTS.put(ctx.model, key, _inputs(ctx, gears))
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


def _inputs(ctx: CommandContext, gears: bool) -> Any:
    from atccheck.model.input_shape import model_inputs

    assert ctx.model is not None
    reading = ctx.input_shape
    shapes: dict[str, Any] = {}
    if reading.value is not None and not reading.syntax:
        ranks = {i.name: i.rank for i in model_inputs(ctx.model)}
        names = list(ranks)
        for index, entry in enumerate(reading.entries):
            name = entry.name if entry.name is not None else (names[index] if index < len(names) else None)
            # a shape of another rank is input-rank-mismatch's finding (ATC stops there first)
            if name is not None and ranks.get(name) in (None, len(entry.dims)):
                shapes[name] = entry.dims
    return model_aipp_inputs(ctx.model, shapes, gears)


def parsed_graph(ctx: CommandContext) -> GraphNames | None:
    """The names of the graph ATC's ONNX parser builds from the model (None without a model)."""
    if ctx.model is None:
        return None
    key = ctx.profile.id if ctx.profile is not None else None
    found = _GRAPH.get(ctx.model, key)
    return found if found is not None else _GRAPH.put(ctx.model, key, graph_names(ctx.model, ctx.profile, ctx.tables))


def report_aipp(rule: type[CommandRule], problems: Sequence[AippProblem], found: NamedFile,
                ctx: CommandContext) -> None:
    """One finding of ``rule`` per problem, on --insert_op_conf, naming the file and line."""
    for problem in problems:
        where = f"{found.written}:{problem.line}" if problem.line else found.written
        ctx.report(rule, problem.option or AIPP_FLAG, f"{where}: {problem.message}", hint=problem.hint,
                   source=problem.source, atc_error=problem.atc_error, severity=Severity(problem.severity),
                   data={"file": found.written, "file_line": problem.line, "check": problem.check,
                         "aipp_op": problem.op, "field": problem.field, **dict(problem.data)})


def aipp_problems(rule: type[CommandRule], ctx: CommandContext, judge: Callable[..., Sequence[AippProblem]],
                  needs_target: bool = True) -> None:
    """Run ``judge(config, target, facts)`` (or ``judge(config, facts)``) on the command's AIPP file and report.

    A judge that needs the target says nothing without a model.
    """
    state = aipp_config(ctx)
    if state is None or state[1].config is None:
        return
    found, parsed = state
    facts = aipp_facts(ctx.tables)
    if not needs_target:
        problems = judge(parsed.config, facts)
    else:
        target = aipp_target(ctx)
        if target is None:
            return
        problems = judge(parsed.config, target, facts)
    report_aipp(rule, problems, found, ctx)
