"""ATC's gear options and dynamic shapes, and the rules that tie them to ``--input_shape``.

Both the command generator and the linter use these functions, so a command atccheck writes
and a command atccheck accepts obey exactly the same rules. Each broken rule comes back as a
:class:`Problem` naming the ATC error code ATC would print (facts: ``atc_cli.md`` sections
1.3-1.4, ``atc_options.json`` --input_shape / --dynamic_* entries, hicann/ge
``compiler/api/aclgrph/option_utils.cc`` and ``compiler/graph/preprocess/multi_batch_options.cc``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from atccheck.model.input_shape import (
    SHAPE_SOURCE,
    Dim,
    ModelInput,
    Problem,
    ShapeEntry,
    check_names_and_ranks,
    format_input_shape,
    model_inputs,
    parse_input_shape,
)
from atccheck.tables import Profile, Soc, Tables, tables

# The one --input_shape grammar lives in atccheck.model.input_shape; these names stay importable here.
__all__ = ["SHAPE_SOURCE", "Dim", "Gears", "ModelInput", "Problem", "ShapeEntry", "check_dynamic_mode",
           "check_gear_count", "check_gears_against_shape", "check_names_and_ranks", "format_input_shape",
           "gear_label", "gear_option_for", "gear_shapes", "model_inputs", "parse_gears", "parse_input_shape"]

GEAR_SOURCE = "hicann/ge@ffdcbc9f7:compiler/graph/preprocess/multi_batch_options.cc"
DYNAMIC_SOURCE = "shared/reference/atc_options.json --input_shape (ranges not supported on Ascend310/310B)"
RELEASE_DYNAMIC_SOURCE = ("shared/reference/notes/atc_cli.md rule 12 (CANN <= 6.x); "
                          "op_tables/profiles.json input_shape_ranges")


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
