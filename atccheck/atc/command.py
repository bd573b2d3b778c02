"""Generate the exact ``atc`` command line for a model and a chip.

``build_command`` is the single generator: ``atccheck atc-cmd``, ``check`` (through
:func:`command_for_report`) and ``fix`` all print what it returns. It refuses, with the ATC
error code, any request ATC itself would reject (gear rules, dynamic shape on chips without it,
precision values the chip or release lacks), so a command it prints is one ATC accepts.

Rules and their facts (``shared/reference/notes/atc_cli.md`` section 1; ``docs/atc.md``):
- ``--framework=5 --model --output --soc_version`` always; ``--output`` is a base name.
- ``--input_format``: NCHW when every input is 4-D, NCDHW when every input is 5-D, ND otherwise
  and with ``--dynamic_dims`` (ONNX accepts only these three, E10001).
- ``--input_shape`` lists every real input (graph inputs minus initializers) in graph order,
  static models included: it records which shape the ``.om`` is built for (a scalar input is
  written ``name:``, atc_cli.md rule 10), and ATC needs it for -1 dims and gears.
- one gear option at most (E10009), 2..gear_max gears, no repeats, -1 only where the option allows.
- ``--precision_mode`` or ``--precision_mode_v2``, never both (E10056); nothing for the default.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atccheck.atc.facts import onnx_framework, precision_values
from atccheck.atc.spec import Gears, check_dynamic_mode, check_gear_count, check_gears_against_shape, parse_gears
from atccheck.errors import AtcCheckError, UsageError
from atccheck.model.input_shape import (
    Problem,
    ShapeEntry,
    check_names_and_ranks,
    format_input_shape,
    model_inputs,
    parse_input_shape,
)
from atccheck.tables import Profile, Soc, Tables, tables
from atccheck.target import (
    DEFAULT_PRECISION_MODE,
    DEFAULT_PROFILE,
    resolve_precision_mode,
    resolve_profile,
    resolve_soc,
)

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.report import Report

DEFAULT_PRECISIONS = ("force_fp16", "fp16")  # ATC's defaults for --precision_mode / --precision_mode_v2


class AtcRuleError(UsageError):
    """A request ATC would reject; ``atc_error`` is the code ATC prints for it."""

    def __init__(self, problem: Problem) -> None:
        code = f" (ATC: {problem.atc_error})" if problem.atc_error else ""
        super().__init__(f"{problem.option}: {problem.message}{code}")
        self.problem = problem
        self.atc_error = problem.atc_error


# --------------------------------------------------------------------------- the command


# fullmatch, not "$": "$" also matches before a final newline, which the shell would lose
_SAFE_WORD = re.compile(r"[A-Za-z0-9_@%+=:./-]+")
_DOUBLE_QUOTE_UNSAFE = re.compile(r"[\"$`\\!\n]")


def quote_value(value: str) -> str:
    """Shell quoting for one value: bare when safe, else double quotes, else single quotes.

    Lists (',' ';') and spaces are double-quoted as ATC's own docs write them; a value with
    characters double quotes do not protect ($ ` \\ " !) is single-quoted.
    """
    if value and _SAFE_WORD.fullmatch(value) and "," not in value:
        return value
    if not _DOUBLE_QUOTE_UNSAFE.search(value):
        return f'"{value}"'
    return "'" + value.replace("'", "'\\''") + "'"


def shell_word(word: str) -> str:
    """One argv element as shell text; ``--name=value`` keeps the name bare."""
    match = re.match(r"^(--[A-Za-z0-9_]+=)(.*)$", word, re.S)
    if match:
        return match.group(1) + quote_value(match.group(2))
    return quote_value(word)


def shell_line(argv: Sequence[str]) -> str:
    return " ".join(shell_word(w) for w in argv)


@dataclass(frozen=True)
class AtcCommand:
    """An ``atc`` command: its argv and the notes a user should read before running it."""

    argv: tuple[str, ...]
    notes: tuple[str, ...] = ()
    input_shapes: tuple[ShapeEntry, ...] = field(default=(), compare=False)

    @property
    def line(self) -> str:
        """One copy-pasteable shell line (``shlex.split(line) == argv``)."""
        return shell_line(self.argv)

    def option(self, name: str) -> str | None:
        """The value of ``--name`` in argv, or None."""
        prefix = f"{name}="
        for word in self.argv:
            if word.startswith(prefix):
                return word[len(prefix):]
        return None

    def to_dict(self) -> dict[str, Any]:
        return {"argv": list(self.argv), "line": self.line, "notes": list(self.notes)}


# --------------------------------------------------------------------------- pieces


def _output_base(model_path: str, output: str | None, notes: list[str], tbl: Tables) -> str:
    stem = os.path.splitext(os.path.basename(model_path))[0] or "model"
    if output is None:
        base = os.path.splitext(model_path)[0] if model_path.endswith(".onnx") else model_path
        if not os.path.basename(base):
            base = os.path.join(base, stem)
    else:
        base = output
        if base.endswith(("/", os.sep)) or os.path.isdir(base):
            base = os.path.join(base, stem)
            notes.append(f"--output names a directory; ATC needs a file base name (E10022): using {base}")
        if base.endswith(".om"):
            base = base[: -len(".om")]
            notes.append(f"--output is a base name: ATC appends .om itself, so the model is written to {base}.om")
    if len(base) >= tbl.limit("atc_output_path_max"):
        raise AtcRuleError(Problem("--output", f"path of {len(base)} characters is too long", "E10021", "output"))
    return base


def _user_entries(model: "onnx.ModelProto", input_shapes: "str | Mapping[str, Sequence[int]] | None") -> list[ShapeEntry]:
    if input_shapes is None or input_shapes == "" or input_shapes == {}:
        return []
    if isinstance(input_shapes, str):
        entries, problems = parse_input_shape(input_shapes)
        if problems:
            raise AtcRuleError(problems[0])
    else:
        entries = []
        for name, dims in input_shapes.items():
            values = tuple(int(d) for d in dims)
            bad = [d for d in values if d == 0 or d < -1]
            if bad:
                raise AtcRuleError(Problem("--input_shape", f"input '{name}': dimension {bad[0]} must be positive "
                                           "(or -1)", "E10011", "input-shape-syntax"))
            entries.append(ShapeEntry(name, values))
    problems = check_names_and_ranks(entries, model)
    if problems:
        raise AtcRuleError(problems[0])
    inputs = model_inputs(model)
    return [ShapeEntry(inputs[i].name, e.dims) if e.name is None else e for i, e in enumerate(entries)]


def _gears(option: str, spec: Any) -> Gears:
    if isinstance(spec, str):
        gears, problems = parse_gears(option, spec.strip().strip('"'))
        if problems or gears is None:
            raise AtcRuleError(problems[0])
        return gears
    values: list[tuple[int, ...]] = []
    for item in spec:
        values.append((int(item),) if isinstance(item, (int, str)) else tuple(int(v) for v in item))
    text = Gears(option, tuple(values)).text()
    gears, problems = parse_gears(option, text)
    if problems or gears is None:
        raise AtcRuleError(problems[0])
    return gears


def _input_format(entries: Sequence[ShapeEntry], gears: Gears | None) -> str:
    if gears is not None and gears.option == "--dynamic_dims":
        return "ND"
    if gears is not None and gears.option == "--dynamic_image_size":
        return "NCHW"
    ranks = {len(e.dims) for e in entries}
    if ranks == {4}:
        return "NCHW"
    if ranks == {5}:
        return "NCDHW"
    return "ND"


def _precision_args(mode: str | None, soc: Soc, profile: Profile, tbl: Tables) -> list[str]:
    mode = (mode or DEFAULT_PRECISION_MODE).strip()
    v1, v2 = precision_values(tbl)
    if mode not in v1 and mode not in v2:
        near = ", ".join(sorted(set(v1) | set(v2)))
        raise AtcRuleError(Problem("--precision_mode", f"'{mode}' is no precision mode (values: {near})", "E10001",
                                   "precision"))
    resolve_precision_mode(mode, soc, profile, tbl)  # bf16 / hif8 / v2-only gating by chip and release
    if mode in DEFAULT_PRECISIONS:
        return []
    if mode in v1:
        return [f"--precision_mode={mode}"]
    return [f"--precision_mode_v2={mode}"]


def _external_data_note(model: "onnx.ModelProto", model_path: str) -> str | None:
    from atccheck.model import onnxpb
    from atccheck.model.loading import iter_graph_tensors

    locations = sorted({
        entry.value
        for tensor in iter_graph_tensors(model.graph)
        if tensor.data_location == onnxpb.TensorProto.EXTERNAL
        for entry in tensor.external_data
        if entry.key == "location"
    })
    if not locations:
        return None
    folder = os.path.dirname(model_path) or "."
    shown = ", ".join(locations[:3]) + (f" (+{len(locations) - 3} more)" if len(locations) > 3 else "")
    return (f"the model keeps weights as external data ({shown}); ATC resolves these locations relative to the "
            f".onnx file's folder ({folder}), so keep them next to it")


def resolve_gears(
    dynamic_batch: "str | Sequence[int] | None" = None,
    dynamic_image_size: "str | Sequence[Sequence[int]] | None" = None,
    dynamic_dims: "str | Sequence[Sequence[int]] | None" = None,
) -> Gears | None:
    """The one gear option asked for, parsed with ATC's rules (E10009 when several are given)."""
    requested = [(o, s) for o, s in (("--dynamic_batch_size", dynamic_batch),
                                      ("--dynamic_image_size", dynamic_image_size),
                                      ("--dynamic_dims", dynamic_dims)) if s is not None]
    if len(requested) > 1:
        names = ", ".join(o for o, _ in requested)
        raise AtcRuleError(Problem(requested[1][0], f"{names} are mutually exclusive; pick one", "E10009",
                                   "gear-rule"))
    return _gears(*requested[0]) if requested else None


def input_entries(
    model: "onnx.ModelProto", input_shapes: "str | Mapping[str, Sequence[int]] | None" = None
) -> list[ShapeEntry]:
    """Every real input in graph order with the dims ATC gets: the caller's, else the model's (-1 if symbolic)."""
    user = {e.name: e for e in _user_entries(model, input_shapes)}
    entries: list[ShapeEntry] = []
    for item in model_inputs(model):
        if item.name in user:
            entries.append(user[item.name])
            continue
        if item.dims is None:
            raise UsageError(
                f"input '{item.name}' has no shape in the model; ATC would read it as a scalar: give its shape "
                "with --input-shape")
        entries.append(ShapeEntry(item.name, item.atc_dims))
    for entry in entries:
        if ";" in (entry.name or ""):
            raise UsageError(f"input '{entry.name}' contains ';', which --input_shape cannot express (ATC splits "
                             "entries on ';'); rename the input")
    return entries


def gears_in_graph_order(
    model: "onnx.ModelProto", input_shapes: "str | Mapping[str, Sequence[int]] | None", gears: Gears | None
) -> Gears | None:
    """``--dynamic_dims`` values fill the -1s of ``--input_shape`` in the order they are written
    (option_utils.cc). The caller's order is their --input-shape's (inputs it does not name after,
    in graph order); the command lists inputs in graph order, so each gear's values are permuted
    to keep their meaning. Other gear options do not depend on the order."""
    if gears is None or gears.option != "--dynamic_dims":
        return gears
    graph = input_entries(model, input_shapes)
    named = [e.name for e in _user_entries(model, input_shapes)]
    written_order = named + [e.name for e in graph if e.name not in named]
    by_name = {e.name: e for e in graph}
    written = [(name, axis) for name in written_order for axis in by_name[name].minus_one_axes]
    ordered = [(e.name, axis) for e in graph for axis in e.minus_one_axes]
    if written == ordered or any(len(g) != len(written) for g in gears.values):
        return gears  # nothing to permute, or a count mismatch the gear rules report
    position = {key: i for i, key in enumerate(written)}
    return Gears(gears.option, tuple(tuple(g[position[key]] for key in ordered) for g in gears.values))


# --------------------------------------------------------------------------- the generator


def build_command(
    model: "onnx.ModelProto",
    model_path: str,
    soc: str,
    *,
    input_shapes: "str | Mapping[str, Sequence[int]] | None" = None,
    dynamic_batch: "str | Sequence[int] | None" = None,
    dynamic_image_size: "str | Sequence[Sequence[int]] | None" = None,
    dynamic_dims: "str | Sequence[Sequence[int]] | None" = None,
    output: str | None = None,
    precision_mode: str | None = None,
    cann: str = DEFAULT_PROFILE,
) -> AtcCommand:
    """The ``atc`` command converting ``model`` (stored at ``model_path``) for ``soc``.

    ``input_shapes`` overrides input dims (ATC syntax or a name -> dims mapping; -1 keeps a dim
    dynamic). At most one of the gear options. Raises :class:`AtcRuleError` (a UsageError)
    whose message names the ATC error code for anything ATC would reject.
    """
    tbl = tables()
    soc_info = resolve_soc(soc, tbl)
    profile = resolve_profile(cann, tbl)
    notes: list[str] = []

    asked = resolve_gears(dynamic_batch, dynamic_image_size, dynamic_dims)
    entries = input_entries(model, input_shapes)
    gears = gears_in_graph_order(model, input_shapes, asked)
    if gears != asked:
        notes.append(f"--dynamic_dims values reordered to follow the inputs in graph order, as --input_shape lists "
                     f"them: {asked.text()} -> {gears.text()}")  # type: ignore[union-attr]

    if gears is not None:
        problems = check_gear_count(gears, soc_info, tbl) + check_gears_against_shape(gears, entries)
        if problems:
            raise AtcRuleError(problems[0])
    else:
        problems = check_dynamic_mode(entries, soc_info, profile)
        if problems:
            raise AtcRuleError(problems[-1])  # the chip's refusal (EZ3002) is the decisive one
        if any(e.minus_one_axes or e.has_range for e in entries):
            notes.append("-1 without a gear option builds a dynamic-shape model: every op needs a dynamic-shape "
                         "kernel (or runs on AI CPU); give static shapes or gears for a faster static model")

    base = _output_base(model_path, output, notes, tbl)
    input_format = _input_format(entries, gears)
    argv = [
        "atc",
        f"--framework={onnx_framework(tbl)}",
        f"--model={model_path}",
        f"--output={base}",
        f"--soc_version={soc_info.name}",
        f"--input_format={input_format}",
    ]
    if entries:  # always: it records the shape the .om is built for (scalars are written 'name:')
        argv.append(f"--input_shape={format_input_shape(entries)}")
    if gears is not None:
        argv.append(f"{gears.option}={gears.text()}")
    argv.extend(_precision_args(precision_mode, soc_info, profile, tbl))
    external = _external_data_note(model, model_path)
    if external:
        notes.append(external)
    if soc_info.name != soc.strip():
        notes.append(f"--soc_version is case-sensitive: '{soc.strip()}' written as ATC spells it, {soc_info.name}")
    return AtcCommand(tuple(argv), tuple(notes), tuple(entries))


GEAR_KEYWORDS = {"--dynamic_batch_size": "dynamic_batch", "--dynamic_image_size": "dynamic_image_size",
                 "--dynamic_dims": "dynamic_dims"}


def command_for_report(report: "Report", gears: Gears | None = None) -> AtcCommand | None:
    """The atc command for a checked model and its target (with ``gears``, the gear option too), or
    None when none can be written (no model in the report, or a request ATC would reject, such as
    dynamic inputs on Ascend310)."""
    ctx = report.context
    if ctx is None:
        return None
    extra = {GEAR_KEYWORDS[gears.option]: gears.text()} if gears is not None else {}
    try:
        return build_command(
            ctx.model,
            report.model,
            report.target.soc.name,
            input_shapes=dict(report.input_shapes) or None,
            precision_mode=report.target.precision_mode,
            cann=report.target.profile.id,
            **extra,
        )
    except AtcCheckError:
        return None
