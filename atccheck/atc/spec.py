"""ATC's grammar for ``--input_shape`` and the gear options, and the rules that tie them together.

Both the command generator and the linter use these functions, so a command atccheck writes
and a command atccheck accepts obey exactly the same rules. Each broken rule comes back as a
:class:`Problem` naming the ATC error code ATC would print (facts: ``atc_cli.md`` sections
1.3-1.4, ``atc_options.json`` --input_shape / --dynamic_* entries, hicann/ge
``compiler/api/aclgrph/option_utils.cc`` and ``compiler/graph/preprocess/multi_batch_options.cc``).
"""

from __future__ import annotations

import collections
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atccheck.tables import Profile, Soc, Tables, tables

if TYPE_CHECKING:  # pragma: no cover
    import onnx

# A dim of --input_shape: a size, -1 (gear axis or unbounded), or a lo~hi range (hi -1 = unbounded).
Dim = int | tuple[int, int]
INT64_MAX = 2**63 - 1

SHAPE_SOURCE = "hicann/ge@ffdcbc9f7:compiler/api/aclgrph/option_utils.cc"
GEAR_SOURCE = "hicann/ge@ffdcbc9f7:compiler/graph/preprocess/multi_batch_options.cc"
DYNAMIC_SOURCE = "shared/reference/atc_options.json --input_shape (ranges not supported on Ascend310/310B)"
RELEASE_DYNAMIC_SOURCE = ("shared/reference/notes/atc_cli.md rule 12 (CANN <= 6.x); "
                          "op_tables/profiles.json input_shape_ranges")


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


# --------------------------------------------------------------------------- gears


@dataclass(frozen=True)
class Gears:
    option: str  # --dynamic_batch_size, --dynamic_image_size or --dynamic_dims
    values: tuple[tuple[int, ...], ...]  # one tuple per gear (a 1-tuple for batch sizes)

    def text(self) -> str:
        if self.option == "--dynamic_batch_size":
            return ",".join(str(g[0]) for g in self.values)
        return ";".join(",".join(str(v) for v in g) for g in self.values)


_GEAR_CHARS = {
    "--dynamic_batch_size": re.compile(r"^[0-9,]*$"),
    "--dynamic_image_size": re.compile(r"^[0-9,; ]*$"),
    "--dynamic_dims": re.compile(r"^[0-9,;]*$"),
}


def parse_gears(option: str, text: str) -> tuple[Gears | None, list[Problem]]:
    """Parse a gear option's value with ATC's character rules (E10003, E10020, E10037, E10038)."""
    problems: list[Problem] = []
    if not _GEAR_CHARS[option].match(text):
        negative = re.search(r"-\d", text)
        code = "E10038" if negative else "E10003"
        what = "gear values must be positive" if negative else "only digits and separators are allowed"
        problems.append(Problem(option, f"'{text}': {what}", code, "gear-rule", GEAR_SOURCE))
        return None, problems
    if option == "--dynamic_batch_size":
        groups = [[t] for t in text.rstrip(",").split(",")] if text.strip(",") else []
    else:
        groups = [g.split(",") for g in text.rstrip(";").split(";")] if text.strip(";") else []
    values: list[tuple[int, ...]] = []
    for group in groups:
        tokens = [t.strip() for t in group]
        if any(not t for t in tokens):
            problems.append(Problem(option, f"'{text}' has an empty value", "E10003", "gear-rule", GEAR_SOURCE))
            return None, problems
        values.append(tuple(int(t) for t in tokens))
    if option == "--dynamic_image_size":
        for gear in values:
            if len(gear) != 2:
                problems.append(Problem(option, f"gear '{','.join(map(str, gear))}' is not a 'height,width' pair",
                                        "E10020", "gear-rule", GEAR_SOURCE))
                return None, problems
    lengths = sorted({len(g) for g in values})
    if len(lengths) > 1:
        problems.append(Problem(option, f"gears have {lengths[0]} and {lengths[-1]} values; all need the same count",
                                "E10037", "gear-rule", GEAR_SOURCE))
        return None, problems
    for gear in values:
        if any(v <= 0 for v in gear):
            problems.append(Problem(option, f"gear '{','.join(map(str, gear))}' has a value that is not > 0",
                                    "E10038", "gear-rule", GEAR_SOURCE))
            return None, problems
    return Gears(option, tuple(values)), problems


def check_gear_count(gears: Gears, soc: Soc | None, tbl: Tables | None = None) -> list[Problem]:
    """2..gear_max gears (E10035/E10036), none repeated (E10039)."""
    from atccheck.atc.facts import gear_limits

    tbl = tbl or tables()
    low, high = gear_limits(soc.gear_max if soc else None, tbl)
    problems = []
    count = len(gears.values)
    where = f" on {soc.name}" if soc else ""
    if count < low:
        problems.append(Problem(gears.option, f"{count} gear(s); ATC needs at least {low}", "E10035", "gear-rule",
                                f"op_tables/limits.json gear_count_min; {GEAR_SOURCE}"))
    if count > high:
        problems.append(Problem(gears.option, f"{count} gears; at most {high}{where}", "E10036", "gear-rule",
                                "op_tables/limits.json gear_count_max; op_tables/socs.json gear_max"))
    seen: set[tuple[int, ...]] = set()
    repeated = []
    for gear in gears.values:
        if gear in seen and gear not in repeated:
            repeated.append(gear)
        seen.add(gear)
    if repeated:
        listed = ", ".join(",".join(map(str, g)) for g in repeated)
        problems.append(Problem(gears.option, f"gear(s) {listed} repeated", "E10039", "gear-rule", GEAR_SOURCE))
    return problems


def check_gears_against_shape(gears: Gears, entries: Sequence[ShapeEntry]) -> list[Problem]:
    """Where -1 may stand for each gear option, and how many values a gear needs."""
    option = gears.option
    problems: list[Problem] = []

    def add(message: str, code: str) -> None:
        problems.append(Problem(option, message, code, "gear-rule", GEAR_SOURCE))

    if not entries:
        add("a gear option needs --input_shape with -1 on the gear axes", "E10004")
        return problems
    ranged = [e for e in entries if e.has_range]
    if ranged:
        add(f"input '{ranged[0].name}' uses a '~' range; ranges cannot be combined with gears", "E10040")
    if option == "--dynamic_batch_size":
        for e in entries:
            if not e.dims:
                add(f"input '{e.name}' is a scalar; --dynamic_batch_size needs a batch axis", "E10012")
            bad = [a for a in e.minus_one_axes if a != 0]
            if bad:
                add(f"input '{e.name}' has -1 at axis {bad[0]}; with --dynamic_batch_size only axis 0 may be -1",
                    "E10018")
        if not any(0 in e.minus_one_axes for e in entries):
            add("no input has -1 at axis 0 (the batch axis)", "E10031")
    elif option == "--dynamic_image_size":
        dynamic = [e for e in entries if e.minus_one_axes]
        for e in dynamic:
            if len(e.dims) != 4 or set(e.minus_one_axes) != {2, 3}:
                add(f"input '{e.name}' has -1 at axes {list(e.minus_one_axes)} of a {len(e.dims)}-D shape; "
                    "-1 must be exactly H and W (axes 2, 3) of a 4-D input", "E10019")
        if not dynamic:
            add("no input has -1 on its H and W axes", "E10019")
    else:
        total = sum(len(e.minus_one_axes) for e in entries)
        per_gear = len(gears.values[0]) if gears.values else 0
        if total == 0:
            add("--input_shape has no -1 for the gears to fill", "E10001")
        elif total > per_gear:
            add(f"--input_shape has {total} -1 axes but each gear gives {per_gear} values", "E10046")
        elif total < per_gear:
            add(f"each gear gives {per_gear} values but --input_shape has only {total} -1 axes", "E10003")
    return problems


def gear_label(gears: Gears, gear: tuple[int, ...]) -> str:
    """One gear as the option's value writes it: ``4`` (batch), ``224,224`` (image size), ``1,128`` (dims)."""
    return ",".join(str(v) for v in gear)


def gear_shapes(gears: Gears, entries: Sequence[ShapeEntry]) -> list[tuple[str, dict[str, tuple[int, ...]]]]:
    """The static input shapes ATC compiles for each gear, as ``(gear label, name -> dims)``.

    With a gear option ATC builds one static graph per gear: every -1 axis 0 takes the batch
    size (--dynamic_batch_size), the -1 H and W axes take the gear's height and width
    (--dynamic_image_size), or the -1 axes, in --input_shape order, take the gear's values one
    by one (--dynamic_dims). Call it only after :func:`check_gears_against_shape` found nothing.
    """
    result = []
    for gear in gears.values:
        values = iter(gear)
        shapes: dict[str, tuple[int, ...]] = {}
        for entry in entries:
            dims = [d if isinstance(d, int) else -1 for d in entry.dims]  # no ranges with gears (E10040)
            for axis in entry.minus_one_axes:
                if gears.option == "--dynamic_batch_size":
                    dims[axis] = gear[0]
                elif gears.option == "--dynamic_image_size":
                    dims[axis] = gear[axis - 2]
                else:
                    dims[axis] = next(values)
            shapes[entry.name or ""] = tuple(dims)
        result.append((gear_label(gears, gear), shapes))
    return result


def gear_option_for(entries: Sequence[ShapeEntry]) -> str:
    """The gear option whose rules the -1 axes of ``entries`` fit (notes/atc_cli.md rules 13-15).

    --dynamic_batch_size when only axis 0 of inputs is -1; --dynamic_image_size when the -1s
    are exactly H and W of 4-D inputs; --dynamic_dims otherwise (batch and sequence both -1).
    A ``lo~hi`` range counts as a -1: gears replace it.
    """
    variable = [(e, {i for i, d in enumerate(e.dims) if d == -1 or isinstance(d, tuple)}) for e in entries]
    variable = [(e, axes) for e, axes in variable if axes]
    if variable and all(axes == {0} for _, axes in variable):
        return "--dynamic_batch_size"
    if variable and all(len(e.dims) == 4 and axes == {2, 3} for e, axes in variable):
        return "--dynamic_image_size"
    return "--dynamic_dims"


def check_dynamic_mode(entries: Sequence[ShapeEntry], soc: Soc | None, profile: Profile | None) -> list[Problem]:
    """-1 or ranges without a gear option mean dynamic-shape compilation: chip and release must allow it.

    The release's limit is kind ``dynamic-shape-release``, the chip's ``dynamic-shape``.
    """
    problems: list[Problem] = []
    dynamic = [e for e in entries if e.minus_one_axes or e.has_range]
    if not dynamic:
        return problems
    first = dynamic[0]
    gear = gear_option_for(entries)
    if profile is not None and not profile.input_shape_ranges:
        if first.has_range:
            problems.append(Problem(
                "--input_shape", f"input '{first.name}' uses a '~' range, which CANN {profile.id} does not accept in "
                "--input_shape", "E10002", "dynamic-shape-release", RELEASE_DYNAMIC_SOURCE))
        else:
            problems.append(Problem(
                "--input_shape", f"input '{first.name}' keeps -1 without a gear option; CANN {profile.id} needs "
                f"a gear option for -1 ({gear} fits these -1 axes)", "E10011", "dynamic-shape-release",
                RELEASE_DYNAMIC_SOURCE))
    if soc is not None and not soc.dynamic_shape:
        what = "a '~' range" if first.has_range else "-1 without a gear option"
        problems.append(Problem(
            "--input_shape", f"input '{first.name}' has {what}: dynamic-shape compilation, which {soc.name} does not "
            "support (static shapes or gears only)", "EZ3002", "dynamic-shape", DYNAMIC_SOURCE))
    return problems


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
