"""ATC's grammar for ``--input_shape``, and its names and ranks against a model: the one reading.

``atccheck check --input-shape``, ``atccheck fix``, the atc command generator and the atc
command lint all read an input shape here, so a shape atccheck takes, writes and accepts obeys
one set of rules. :func:`parse_input_shape` reads the value as ATC does (entries split by ``;``,
the name at the last ``:``, dims split by ``,``; a size, -1, or a ``lo~hi`` range) and returns
each broken rule as a :class:`Problem` with the ATC error code; :func:`check_names_and_ranks`
holds the entries against the model's real inputs. :func:`parse_input_shapes` and
:func:`validate_input_shapes` are the strict form ``check`` and ``fix`` take: named entries of
sizes or -1, the first problem raised as a UsageError. (Facts: the
``--input_shape`` page of the ATC docs (``op_tables/atc_options.json``), hicann/ge ``compiler/api/aclgrph/option_utils.cc``.)
"""

from __future__ import annotations

import collections
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atccheck.errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    import onnx

# A dim of --input_shape: a size, -1 (gear axis or unbounded), or a lo~hi range (hi -1 = unbounded).
Dim = int | tuple[int, int]
INT64_MAX = 2**63 - 1

SHAPE_SOURCE = "hicann/ge@ffdcbc9f7:compiler/api/aclgrph/option_utils.cc"


@dataclass(frozen=True)
class Problem:
    """One broken ATC rule: the option it concerns, what is wrong, and ATC's error code."""

    option: str
    message: str
    atc_error: str | None
    kind: str  # a short tag: the lint rule that reports it
    source: str = SHAPE_SOURCE


@dataclass(frozen=True)
class ShapeEntry:
    name: str | None  # None in the positional form ("1,3,224,224;1,128")
    dims: tuple[Dim, ...]

    @property
    def minus_one_axes(self) -> tuple[int, ...]:
        return tuple(i for i, d in enumerate(self.dims) if d == -1)

    @property
    def has_range(self) -> bool:
        return any(isinstance(d, tuple) for d in self.dims)

    def text(self) -> str:
        dims = ",".join(f"{d[0]}~{d[1]}" if isinstance(d, tuple) else str(d) for d in self.dims)
        return f"{self.name}:{dims}" if self.name is not None else dims


def format_input_shape(entries: Sequence[ShapeEntry]) -> str:
    return ";".join(e.text() for e in entries)


# --------------------------------------------------------------------------- --input_shape


_INT = re.compile(r"^-?\d+$")
_FLOAT = re.compile(r"^-?\d*\.\d*$")


def _parse_dim(token: str, name: str, problems: list[Problem]) -> Dim | None:
    def bad(reason: str, code: str) -> None:
        problems.append(Problem("--input_shape", f"input '{name}': {reason}", code, "input-shape-syntax"))

    if "~" in token:
        lo_text, _, hi_text = token.partition("~")
        if not (_INT.match(lo_text.strip()) and _INT.match(hi_text.strip())):
            bad(f"range '{token}' must be two integers 'lo~hi'", "E10002")
            return None
        lo, hi = int(lo_text), int(hi_text)
        if lo < 0 or (hi < lo and hi != -1):
            bad(f"range '{token}' must have 0 <= lo <= hi (hi -1 = unbounded)", "E10002")
            return None
        return (lo, hi)
    if _FLOAT.match(token) and token not in ("", "-", "."):
        bad(f"'{token}' is not an integer dimension", "E10002")
        return None
    if not _INT.match(token):
        bad(f"'{token}' is not a dimension (digits only; separate inputs with ';')", "E10002")
        return None
    value = int(token)
    if abs(value) > INT64_MAX:
        bad(f"'{token}' overflows int64", "E10013")
        return None
    if value == 0 or value < -1:
        bad(f"dimension {value} must be positive (or -1)", "E10011")
        return None
    return value


def parse_input_shape(text: str) -> tuple[list[ShapeEntry], list[Problem]]:
    """Parse ``"a:1,3,224,224;b:1,128"`` like ATC: split on ';', name at the LAST ':', dims on ','."""
    entries: list[ShapeEntry] = []
    problems: list[Problem] = []
    parts = [p for p in text.split(";") if p.strip()]
    positional = bool(parts) and all(":" not in p for p in parts)
    for part in parts:
        if positional:
            name, dims_text = None, part
        elif ":" not in part:
            problems.append(Problem(
                "--input_shape", f"entry '{part}' has no 'name:' part (separate inputs with ';', dims with ',')",
                "E10002", "input-shape-syntax"))
            continue
        else:
            name, _, dims_text = part.rpartition(":")
            name = name.strip()
            if not name:
                problems.append(Problem("--input_shape", f"entry '{part}' has an empty input name", "E10002",
                                        "input-shape-syntax"))
                continue
        label = name if name is not None else f"#{len(entries)}"
        dims: list[Dim] = []
        ok = True
        for token in (t.strip() for t in dims_text.split(",")) if dims_text.strip() else ():
            dim = _parse_dim(token, label, problems)
            if dim is None:
                ok = False
                continue
            dims.append(dim)
        if ok:
            entries.append(ShapeEntry(name, tuple(dims)))
    seen = collections.Counter(e.name for e in entries if e.name is not None)
    for name in sorted(n for n, times in seen.items() if times > 1):
        problems.append(Problem("--input_shape", f"input '{name}' is given twice", "E10002", "input-shape-syntax"))
    return entries, problems


# --------------------------------------------------------------------------- the model side


@dataclass(frozen=True)
class ModelInput:
    """A real graph input (initializers excluded) as ATC's parser reads it."""

    name: str
    elem_type: int
    dims: tuple[int | str | None, ...] | None  # None: the input has no shape (ATC reads rank 0)

    @property
    def rank(self) -> int | None:
        return None if self.dims is None else len(self.dims)

    @property
    def atc_dims(self) -> tuple[int, ...]:
        """Dims as ATC reads them: dim_param and unset dims become -1."""
        return tuple(d if isinstance(d, int) else -1 for d in (self.dims or ()))

    @property
    def is_dynamic(self) -> bool:
        return self.dims is not None and any(not isinstance(d, int) for d in self.dims)


def model_inputs(model: "onnx.ModelProto") -> list[ModelInput]:
    """Graph inputs minus initializer-backed ones, in graph order."""
    from atccheck.model.shapes import graph_inputs, type_info

    found = []
    for vi in graph_inputs(model):
        info = type_info(vi.type)
        found.append(ModelInput(vi.name, info.elem_type if info else 0, info.shape if info else None))
    return found


def check_names_and_ranks(entries: Sequence[ShapeEntry], model: "onnx.ModelProto") -> list[Problem]:
    """--input_shape names must be real inputs (E10016/E10017) with the model's rank (E10049)."""
    inputs = {i.name: i for i in model_inputs(model)}
    node_names = {n.name for n in model.graph.node if n.name}
    initializers = {t.name for t in model.graph.initializer}
    problems: list[Problem] = []
    for index, entry in enumerate(entries):
        name = entry.name
        if name is None:
            ordered = list(inputs.values())
            target = ordered[index] if index < len(ordered) else None
            if target is None:
                problems.append(Problem("--input_shape", f"entry {index} has no matching input; the model has "
                                        f"{len(ordered)}", "E10016", "input-name"))
                continue
        else:
            target = inputs.get(name)
            if target is None:
                known = ", ".join(inputs) or "none"
                near = [n for n in inputs if n.lower() == name.lower()]
                if name in node_names:
                    message, code = f"'{name}' is a node of the graph, not an input (inputs: {known})", "E10017"
                elif name in initializers:
                    message, code = (f"'{name}' is an initializer (a constant to ATC), not an input "
                                     f"(inputs: {known})", "E10016")
                elif near:
                    message, code = f"'{name}' is not an input; names are case-sensitive: '{near[0]}'", "E10016"
                elif ":" in name and "," in name:
                    message, code = (f"'{name}' is not an input: the entries look separated by ',' instead of ';' "
                                     f"(inputs: {known})"), "E10016"
                else:
                    message, code = f"'{name}' is not an input of the model (inputs: {known})", "E10016"
                problems.append(Problem("--input_shape", message, code, "input-name"))
                continue
        if target.rank is not None and target.rank != len(entry.dims):
            problems.append(Problem(
                "--input_shape", f"input '{target.name}' is given rank {len(entry.dims)} but the model input has rank "
                f"{target.rank}", "E10049", "input-rank"))
    return problems


FIXED_DIM_SOURCE = ("hicann/ge@ffdcbc9f7:parser/parser/onnx/onnx_data_parser.cc (ParseInputFromUser: the user's "
                    "dims replace the model's, only the rank is compared)")


def check_fixed_dims(entries: Sequence[ShapeEntry], model: "onnx.ModelProto") -> list[Problem]:
    """A size given for a dim the model fixes must be that size; -1 (a gear axis, or dynamic) may stand anywhere.

    ATC's ONNX parser does not compare them: it builds the graph at the user's dims, which the
    exporter never traced (a Conv whose weights take 3 channels fed 4), and the op that breaks
    fails later with a code of its own, unknown in general. So atccheck refuses the shape where
    it is given: the model says which size that dim has. Entries whose name or rank is wrong are
    left to :func:`check_names_and_ranks`.
    """
    inputs = model_inputs(model)
    by_name = {i.name: i for i in inputs}
    problems: list[Problem] = []
    for index, entry in enumerate(entries):
        target = by_name.get(entry.name) if entry.name is not None else (
            inputs[index] if index < len(inputs) else None)
        if target is None or target.dims is None or len(target.dims) != len(entry.dims):
            continue
        for axis, (given, fixed) in enumerate(zip(entry.dims, target.dims)):
            if isinstance(given, int) and given > 0 and isinstance(fixed, int) and fixed > 0 and given != fixed:
                problems.append(Problem(
                    "--input_shape", f"input '{target.name}' is given size {given} on axis {axis}, but the model fixes "
                    f"that dim at {fixed} (model input {_dims(target.dims)})", None, "input-fixed-dim",
                    FIXED_DIM_SOURCE))
                break
    return problems


def _dims(dims: Sequence[int | str | None]) -> str:
    return "[" + ",".join(str(d) if d is not None else "?" for d in dims) + "]"


# --------------------------------------------------------------------------- check's form


def parse_input_shapes(text: str | None) -> dict[str, tuple[int, ...]]:
    """``check``/``fix --input-shape``: ``"a:1,3,224,224;b:1,128"``, a scalar as ``"name:"``, -1 keeping a
    dim dynamic; ATC's grammar, named entries and sizes only. UsageError names the first problem."""
    shapes: dict[str, tuple[int, ...]] = {}
    if not text:
        return shapes
    entries, problems = parse_input_shape(text)
    if problems:
        raise UsageError(_usage(problems[0]))
    for entry in entries:
        if entry.name is None:
            raise UsageError(f"--input-shape entry '{entry.text()}' needs the form name:d0,d1,...")
        if entry.has_range:
            raise UsageError(f"--input-shape '{entry.name}': a range 'lo~hi' is for atc's dynamic-shape builds; "
                             "give a size, or -1 to keep the dim dynamic")
        shapes[entry.name] = tuple(d for d in entry.dims if isinstance(d, int))
    return shapes


def validate_input_shapes(model: "onnx.ModelProto", shapes: Mapping[str, tuple[int, ...]], *,
                          fixed_dims: bool = True) -> None:
    """Names and ranks must match the model's real inputs, as ATC demands (E10016, E10017, E10049), and
    (``fixed_dims``) a size must be the one the model fixes for that dim."""
    entries = [ShapeEntry(name, tuple(dims)) for name, dims in shapes.items()]
    problems = check_names_and_ranks(entries, model)
    if not problems and fixed_dims:
        problems = check_fixed_dims(entries, model)
    if problems:
        raise UsageError(_usage(problems[0]))
    from atccheck.model.shapes import graph_inputs

    kinds = {vi.name: vi.type.WhichOneof("value") for vi in graph_inputs(model)}
    for name in shapes:
        kind = kinds.get(name)
        if kind != "tensor_type":  # an opaque, sequence, map or optional value has no dims to fix
            what = f"of {kind.removesuffix('_type').replace('_', ' ')} type" if kind else "without a type"
            raise UsageError(f"--input-shape '{name}': the model input is {what}, not a tensor, so it has no "
                             "shape to give")


def _usage(problem: Problem) -> str:
    if problem.kind == "input-fixed-dim":
        return f"--input-shape: {problem.message}; {FIXED_DIM_ADVICE}"
    return f"--input-shape: {problem.message}" + (f" (ATC: {problem.atc_error})" if problem.atc_error else "")


# What to do about a size that contradicts a fixed dim: every refusal of one says it the same way.
FIXED_DIM_ADVICE = ("give the model's size, or re-export the model with that dim dynamic (to vary it with gears, "
                    "put -1 there and a gear option: each gear is then checked)")
