"""atccheck atc-cmd: print the exact atc command for a model and a chip, or lint your own."""

from __future__ import annotations

import json
import sys

import click

from atccheck.cli.options import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    cann_option,
    error_boundary,
    input_shape_option,
    use_color,
    write_output,
)
from atccheck.target import DEFAULT_PRECISION_MODE


@click.command("atc-cmd")
@click.argument("model", type=click.Path(dir_okay=False, path_type=str))
@click.option("--soc", "soc", metavar="SOC_VERSION",
              help="Target chip, as ATC's --soc_version (any case). Required unless --lint/--lint-file "
                   "names a valid one.")
@cann_option
@input_shape_option
@click.option("--dynamic-batch", metavar="B1,B2,...", help='Batch gears: "1,2,4,8" (-1 goes on axis 0).')
@click.option("--dynamic-image-size", metavar='"H,W;H,W"', help='Image-size gears: "224,224;448,448".')
@click.option("--dynamic-dims", metavar='"D,..;D,.."', help="Gears for every -1 of the input shape, in order.")
@click.option("--output", "atc_output", metavar="BASE",
              help="ATC's --output: base name of the .om (default: the model's path without .onnx).")
@click.option("--precision-mode", "precision_mode", default=None, metavar="MODE",
              help="--precision_mode or --precision_mode_v2 value (default: ATC's own, " + DEFAULT_PRECISION_MODE + ").")
@click.option("--lint", "lint_text", metavar='"atc ..."', help="Lint this atc command instead of writing one.")
@click.option("--lint-file", "lint_file", type=click.Path(dir_okay=False, path_type=str), metavar="SCRIPT",
              help="Lint every atc command in a shell script.")
@click.option("--aipp-format", "aipp_format", metavar="IMAGE",
              help="Write an AIPP config (--insert_op_conf) for images of this format: RGB888_U8, BGR888_U8, "
                   "YUV420SP_U8, YVU420SP_U8, XRGB8888_U8, YUV400_U8, ... (docs/atc.md lists them).")
@click.option("--mean", "aipp_mean", metavar="M1,M2,M3", help="AIPP: per-channel mean, 0-255 pixel scale.")
@click.option("--std", "aipp_std", metavar="S1,S2,S3", help="AIPP: per-channel std (var_reci_chn = 1/std).")
@click.option("--aipp-color", "aipp_color", metavar="RGB|BGR|GRAY",
              help="AIPP: the network's channel order (default RGB; GRAY for 1 channel).")
@click.option("--aipp-standard", "aipp_standard", metavar="STD",
              help="AIPP, YUV images: BT-601NARROW (default), BT-601WIDE, BT-709NARROW, BT-709WIDE or JPEG.")
@click.option("--aipp-input", "aipp_input", metavar="NAME", help="AIPP: the model input it feeds (default: the 4-D one).")
@click.option("--aipp-out", "aipp_out", metavar="FILE",
              help="Where to write the AIPP config (default: MODEL without .onnx, plus _aipp.cfg).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@error_boundary
def atc_cmd_command(model, soc, cann, input_shape, dynamic_batch, dynamic_image_size, dynamic_dims, atc_output,
                    precision_mode, lint_text, lint_file, aipp_format, aipp_mean, aipp_std, aipp_color, aipp_standard,
                    aipp_input, aipp_out, fmt):
    """Print the atc command that converts MODEL for --soc, or lint an existing one.

    The command always has --framework=5, --model, --output (a base name), --soc_version in
    ATC's spelling, --input_format and --input_shape (every real input in graph order, static
    models too: it records the shape the .om is built for). Requests ATC would reject
    (gear rules, -1 on Ascend310/310B, bf16 on chips without it) exit 2 naming ATC's error code.

    With --aipp-format (and --mean/--std), it also writes an AIPP config for the model's image
    input, checked as the lint checks one, and adds --insert_op_conf to the command.

    With --lint/--lint-file, each defect of the command (unknown or glued flags, a space after
    '=', wrong soc literals, input names not in MODEL, gear rules, NHWC for ONNX, the AIPP file
    and the other files and names it gives, ...) is listed with the ATC error it would cause;
    exit 1 when one is an error. Relative paths are looked up from the current directory (and
    the script's directory for --lint-file).
    """
    from atccheck.errors import UsageError
    from atccheck.model.loading import load_model

    if lint_text is not None and lint_file is not None:
        raise UsageError("give --lint or --lint-file, not both")
    loaded = load_model(model, weights=False)
    if lint_text is not None or lint_file is not None:
        text = lint_text if lint_text is not None else _read_script(lint_file)
        _lint(loaded.model, model, text, lint_file or "<command>", soc, cann, fmt, precision_mode)
        return
    aipp = dict(image=aipp_format, mean=aipp_mean, std=aipp_std, color=aipp_color, standard=aipp_standard,
                input_name=aipp_input, out=aipp_out)
    if aipp_format is None and any(v is not None for k, v in aipp.items() if k != "image"):
        raise UsageError("--mean, --std and the --aipp-* options need --aipp-format")
    if not soc:
        raise UsageError("--soc is required to write a command")
    from atccheck.atc.command import build_command

    command = build_command(
        loaded.model, model, soc, input_shapes=input_shape, dynamic_batch=dynamic_batch,
        dynamic_image_size=dynamic_image_size, dynamic_dims=dynamic_dims, output=atc_output,
        precision_mode=precision_mode, cann=cann)
    written_aipp = None
    if aipp_format is not None:
        command, written_aipp = _with_aipp(loaded.model, model, command, soc, cann, aipp)
    if fmt == "json":
        doc = command.to_dict()
        if written_aipp is not None:
            doc["aipp"] = {"path": written_aipp[0], "text": written_aipp[1]}
        write_output(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", None)
    else:
        write_output(command.line + "\n", None)
        for note in command.notes:
            click.echo(f"# note: {note}", err=True)
    sys.exit(EXIT_CLEAN)


# A shell script of atc commands is a few KiB; 1 MiB holds thousands of commands, and the lint
# report of a script that size already runs to megabytes. Anything past it is not a script.
SCRIPT_LIMIT = 2**20


def _read_script(path: str) -> str:
    from atccheck.fileio import read_small_file

    return read_small_file(path, "--lint-file", limit=SCRIPT_LIMIT).decode("utf-8", errors="replace")


def _with_aipp(model, model_path, command, soc, cann, aipp):
    """Write the AIPP config the options ask for and add --insert_op_conf to ``command``."""
    from atccheck.atc.aipp import AippRequestError
    from atccheck.atc.aipp_command import aipp_for_command, default_config_path
    from atccheck.atc.suggestion import with_flag
    from atccheck.errors import UsageError
    from atccheck.fileio import atomic_write_text
    from atccheck.target import resolve_profile, resolve_soc

    try:
        generated = aipp_for_command(model, command, resolve_soc(soc), resolve_profile(cann), aipp["image"],
                                     mean=_floats(aipp["mean"], "--mean"), std=_floats(aipp["std"], "--std"),
                                     color=aipp["color"], standard=aipp["standard"], input_name=aipp["input_name"])
    except AippRequestError as exc:
        raise UsageError(f"--aipp-format: {exc}") from None
    path = aipp["out"] or default_config_path(model_path)
    atomic_write_text(path, generated.text)
    command = with_flag(command, "--insert_op_conf", path, note=f"wrote the AIPP config {path}")
    for note in generated.notes:
        command = with_flag(command, "--insert_op_conf", path, note=note)
    return command, (path, generated.text)


def _floats(text, option):
    from atccheck.errors import UsageError

    if text is None:
        return None
    try:
        return [float(v) for v in text.replace(";", ",").split(",") if v.strip()]
    except ValueError:
        raise UsageError(f"{option} takes numbers separated by ',': {text!r}") from None


def _suggestion(model, model_path, result, soc, cann, precision_mode):
    """The command atccheck would write for the same chip (and shapes/gears, when they are valid)."""
    from atccheck.atc.command import build_command
    from atccheck.atc.facts import gear_flags, known_flags, valid_soc_names
    from atccheck.errors import AtcCheckError

    cmd = result.commands[0] if result.commands else None
    chip = soc
    if cmd is not None and cmd.value("--soc_version") in valid_soc_names():
        chip = chip or cmd.value("--soc_version")
    if not chip:
        return None
    tries = []
    if cmd is not None:
        gears = {flag: cmd.value(flag) for flag in gear_flags() if cmd.value(flag)}
        tries.append(dict(
            input_shapes=cmd.value("--input_shape") or None,
            dynamic_batch=gears.get("--dynamic_batch_size"),
            dynamic_image_size=gears.get("--dynamic_image_size"),
            dynamic_dims=gears.get("--dynamic_dims"),
            output=cmd.value("--output") or None,
            precision_mode=precision_mode or cmd.value("--precision_mode_v2") or cmd.value("--precision_mode"),
        ))
    tries.append(dict(precision_mode=precision_mode))
    from atccheck.atc.suggestion import keep_user_flags

    for kwargs in tries:
        try:
            written = build_command(model, model_path, chip, cann=cann, **kwargs)
        except AtcCheckError:
            continue
        if cmd is None:
            return written
        takes = {name: info.takes_value for name, info in known_flags().items()}
        return keep_user_flags(written, cmd, result.findings, takes)
    return None


def _lint(model, model_path, text, where, soc, cann, fmt, precision_mode):
    import os

    from atccheck.atc.command_files import FileBase
    from atccheck.atc.lint import lint_command

    script_dir = os.path.dirname(os.path.abspath(where)) if where != "<command>" else None
    files = FileBase(os.getcwd(), script_dir)
    result = lint_command(text, model, model_path=model_path, soc=soc, cann=cann, files=files)
    suggested = _suggestion(model, model_path, result, soc, cann, precision_mode)
    if fmt == "json":
        doc = {
            "source": where,
            "commands": [{"line": c.line, "argv": ["atc", *c.argv]} for c in result.commands],
            "summary": {**result.counts(), "total": len(result.findings)},
            "findings": [f.to_dict() for f in result.findings],
            "suggested": suggested.to_dict() if suggested else None,
        }
        write_output(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", None)
    else:
        write_output(_lint_text(result, where, suggested, use_color()), None)
    sys.exit(EXIT_FINDINGS if result.has_errors() else EXIT_CLEAN)


def _lint_text(result, where, suggested, color) -> str:
    from atccheck.emit.text import COLOURS  # the same severity colours as check's text report
    from atccheck.rule_docs import atc_reaction

    def style(text, **kw):
        return click.style(text, **kw) if color else text

    lines = []
    for f in result.findings:
        option = f" ({f.location.node})" if f.location.node else ""
        head = f"{where}:{f.data.get('line', 1)}: {f.severity.value} {f.code} {f.name}{option}"
        lines.append(style(head, fg=COLOURS[f.severity], bold=True))
        lines.append(f"    {f.message}")
        extras = [f"ATC: {atc_reaction(f.atc_error, f.severity.value)}"]
        extras.append(f"hint: {f.hint}")
        lines.append("    " + " | ".join(extras))
    counts = result.counts()
    commands = len(result.commands)
    lines.append(style(
        f"{commands} atc command{'s' if commands != 1 else ''}: {counts['error']} error(s), "
        f"{counts['warning']} warning(s), {counts['info']} info", bold=True))
    if suggested is not None:
        lines.append("")
        lines.append("atccheck would write:")
        lines.append(suggested.line)
        lines.extend(f"# note: {note}" for note in suggested.notes)
    return "\n".join(lines) + "\n"
