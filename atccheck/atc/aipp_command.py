"""An AIPP config for a command atccheck writes: generated for its model input, checked against its options.

:func:`aipp_for_command` is what ``atccheck atc-cmd MODEL --soc SOC --aipp-format ...`` calls: it
writes the config with :func:`atccheck.atc.aipp.generate_aipp` for the shapes, gears and chip of
the command, then judges it with :func:`atccheck.atc.aipp.validate` as the lint would. An error
refuses the request (:class:`AippRequestError`); warnings become notes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from atccheck.atc.aipp import (
    AippRequestError,
    AippTarget,
    GeneratedAipp,
    aipp_facts,
    generate_aipp,
    model_aipp_inputs,
    parse_aipp,
    validate,
)
from atccheck.atc.facts import gear_flags

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.atc.command import AtcCommand
    from atccheck.tables import Profile, Soc


def command_target(model: "onnx.ModelProto", command: "AtcCommand", soc: "Soc", profile: "Profile") -> AippTarget:
    """The AIPP target of a written command: its input shapes, gears, input format and chip."""
    shapes = {e.name: e.dims for e in command.input_shapes if e.name is not None}
    gears = any(command.option(flag) for flag in gear_flags())
    return AippTarget(model_aipp_inputs(model, shapes, gears), profile.id, profile.kernel_release, soc.short_soc,
                      command.option("--input_format"), dynamic_dims=command.option("--dynamic_dims") is not None,
                      dynamic_image_size=command.option("--dynamic_image_size") is not None)


def aipp_for_command(
    model: "onnx.ModelProto",
    command: "AtcCommand",
    soc: "Soc",
    profile: "Profile",
    image: str,
    *,
    mean: Sequence[float] | None = None,
    std: Sequence[float] | None = None,
    color: str | None = None,
    standard: str | None = None,
    input_name: str | None = None,
) -> GeneratedAipp:
    """The AIPP config for ``command``'s model input; AippRequestError when ATC would refuse it."""
    facts = aipp_facts()
    target = command_target(model, command, soc, profile)
    generated = generate_aipp(target.inputs, image, mean=mean, std=std, color=color, standard=standard,
                              input_name=input_name, facts=facts)
    parsed = parse_aipp(generated.text, facts)
    if parsed.config is None:  # the generator writes what the parser reads; a failure here is a bug
        raise AssertionError(f"generated AIPP config does not parse: {parsed.error}")
    problems = validate(parsed.config, target, facts)
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        shown = "; ".join(f"{p.message}{f' (ATC: {p.atc_error})' if p.atc_error else ''}" for p in errors[:3])
        raise AippRequestError(f"an AIPP config for this command would fail: {shown}")
    notes = tuple(f"AIPP: {p.message}" for p in problems)
    return replace(generated, notes=generated.notes + notes)


def default_config_path(model_path: str) -> str:
    """Where the config goes unless the user says: beside the model, named after it."""
    stem = os.path.splitext(model_path)[0] if model_path.endswith(".onnx") else model_path
    return f"{stem}_aipp.cfg"
