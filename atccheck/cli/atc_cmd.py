"""atccheck atc-cmd: print the exact atc command for a model and a chip, or lint your own."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

import click

from atccheck.cli.config import SETTINGS_HELP, config_file_options, one_chip, settings_from_options
from atccheck.cli.options import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    cann_option,
    error_boundary,
    input_shape_option,
    note_profile,
    use_color,
    write_output,
)
from atccheck.target import DEFAULT_PRECISION_MODE

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.command_files import FileBase


@click.command("atc-cmd", epilog=SETTINGS_HELP + " atc-cmd reads soc (one chip), cann, precision-mode and "
               "the model's input-shapes entry (shapes and gears): the command check prints for the same settings.")
@click.argument("model", required=False, type=click.Path(dir_okay=False, path_type=str))
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
              help="Lint every atc command in a shell script, each against the model its --model names "
                   "(from the current directory, then the script's folder; MODEL is then optional, used where that file is missing).")
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
@config_file_options
@error_boundary
def atc_cmd_command(model, dynamic_batch, dynamic_image_size, dynamic_dims, atc_output, lint_text, lint_file,
                    aipp_format, aipp_mean, aipp_std, aipp_color, aipp_standard, aipp_input, aipp_out, fmt, **params):
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
    exit 1 when one is an error. Relative paths are looked up from the current directory and,
    for --lint-file, the script's folder. With --lint-file, each command is checked against
    the model its --model names; where that file is missing, against MODEL (when it has the
    same file name), else without the checks against a model (a note says which lines).
    """
    from atccheck.errors import UsageError
    from atccheck.model.loading import load_model

    if lint_text is not None and lint_file is not None:
        raise UsageError("give --lint or --lint-file, not both")
    from atccheck.config import DEFAULT

    settings = settings_from_options(params)
    cann = settings.cann
    # ATC's own default unless --precision-mode or the settings name one
    precision_mode = settings.precision_mode if settings.sources.get("precision_mode") != DEFAULT else None
    note_profile(cann)
    if model is None and lint_file is None:
        raise UsageError("missing argument 'MODEL' (only --lint-file can do without it: it reads the models its "
                         "commands name); see 'atccheck atc-cmd --help'")
    loaded = load_model(model, weights=False) if model is not None else None
    if lint_text is not None or lint_file is not None:
        text = lint_text if lint_text is not None else _read_script(lint_file)
        soc = one_chip(settings, "atc-cmd") if settings.socs else None
        given = (loaded.model, model) if loaded is not None and model is not None else None
        models = ScriptModels(_files_for(lint_file), given) if lint_file is not None else None
        _lint(given, text, lint_file or "<command>", soc, cann, fmt, precision_mode, models, settings)
        return
    assert loaded is not None and model is not None
    aipp = dict(image=aipp_format, mean=aipp_mean, std=aipp_std, color=aipp_color, standard=aipp_standard,
                input_name=aipp_input, out=aipp_out)
    if aipp_format is None and any(v is not None for k, v in aipp.items() if k != "image"):
        raise UsageError("--mean, --std and the --aipp-* options need --aipp-format")
    soc = one_chip(settings, "atc-cmd")
    from atccheck.atc.command import GEAR_KEYWORDS, build_command

    gears = {"dynamic_batch": dynamic_batch, "dynamic_image_size": dynamic_image_size, "dynamic_dims": dynamic_dims}
    if all(value is None for value in gears.values()):
        option = settings.gears_for(model)  # the model's input-shapes entry, as check reads it
        if option is not None:
            gears[GEAR_KEYWORDS[option[0]]] = option[1]
    command = build_command(
        loaded.model, model, soc, input_shapes=settings.shapes_for(model), output=atc_output,
        precision_mode=precision_mode, cann=cann, **gears)
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


class ScriptModels:
    """The model each command of a script converts: its --model looked up as the command's other
    files are (the current directory, then the script's folder) where that file exists; else the
    MODEL argument when it has the same file name (or the command names none it can be told by);
    else none, and why (the checks against a model are skipped for that command)."""

    def __init__(self, files: "FileBase", given: "tuple[Any, str] | None") -> None:
        self.files = files
        self.given = given
        self.unread: dict[int, tuple[str, str]] = {}  # command line -> (model path, why it was not read)
        self._cache: dict[str, Any] = {}

    def path_of(self, cmd) -> str | None:
        """--model as ATC gets it from this script (the file found, else where it was last looked
        for), or None (absent, or a shell expansion)."""
        from atccheck.atc.command_files import resolve_command_path

        occurrence = cmd.last("--model")
        if occurrence is None or not occurrence.value or occurrence.has_expansion:
            return None
        found = resolve_command_path(occurrence.value.strip('"'), self.files)
        return os.path.normpath(found.path or found.tried[-1])

    def __call__(self, cmd):
        from atccheck.errors import InputError

        path = self.path_of(cmd)
        if path is not None and os.path.isfile(path):
            key = os.path.realpath(path)
            if key not in self._cache:
                from atccheck.model.loading import load_model

                try:
                    self._cache[key] = load_model(path, weights=False).model
                except InputError as exc:
                    self._cache[key] = exc
            found = self._cache[key]
            if not isinstance(found, Exception):
                return found, path
            problem = str(found)
        else:
            problem = "no such file"
        if self.given is not None and (path is None or os.path.basename(path) == os.path.basename(self.given[1])):
            return self.given
        if path is not None:
            self.unread[cmd.line] = (path, problem)
        else:
            self.unread[cmd.line] = ("--model", "not given" if cmd.last("--model") is None else "a shell expansion")
        return None, path

    def note(self) -> str | None:
        """One line for every command linted without a model, or None."""
        if not self.unread:
            return None
        lines = ", ".join(str(line) for line in sorted(self.unread))
        first = self.unread[min(self.unread)]
        more = f" (and {len(self.unread) - 1} more)" if len(self.unread) > 1 else ""
        return (f"no model read for the command{'s' if len(self.unread) > 1 else ''} on line{'s' if len(self.unread) > 1 else ''} "
                f"{lines} ({first[0]}: {first[1]}{more}): the checks against a model (input names, ranks, dynamic "
                "inputs) were skipped for them; give MODEL or run from where the script's paths resolve")


def _suggestion(model, model_path, result, soc, cann, precision_mode, settings=None):
    """The command atccheck would write for the same chip, keeping every flag of the user's
    command the lint did not judge wrong (atccheck.atc.suggestion says which): its own flags
    (--output, shapes, gears, precision) from the user's values, and where those still make no
    valid command, the gears, then the shapes, then the precision mode dropped in turn; the
    user's other flags as given, each one left out with a note. The settings' shapes and gears
    for the model stand in for those the command does not keep."""
    from atccheck.atc.command import build_command
    from atccheck.atc.facts import gear_flags, known_flags, valid_soc_names
    from atccheck.atc.lint.rules import command_rule
    from atccheck.atc.suggestion import judged_wrong, keep_user_flags, user_value
    from atccheck.errors import AtcCheckError

    cmd = result.commands[0] if result.commands else None
    chip = soc
    if cmd is not None and cmd.value("--soc_version") in valid_soc_names():
        chip = chip or cmd.value("--soc_version")
    if not chip:
        return None
    tries = []
    wrong: set[str] = set()
    if cmd is not None:
        # a defect only in how a flag is written (shell and parser stages) keeps the value the user meant
        wrong = judged_wrong(result.findings, cmd.line, lambda f: command_rule(f.name).stage != "values")
        gears = {flag: user_value(cmd, wrong, flag) for flag in gear_flags()}
        configured = settings.gears_for(model_path) if settings is not None and model_path else None
        if configured is not None and not any(gears.values()):
            gears[configured[0]] = configured[1]
        shapes = user_value(cmd, wrong, "--input_shape")
        if shapes is None and settings is not None and model_path:
            shapes = settings.shapes_for(model_path)
        mine = dict(
            input_shapes=shapes,
            dynamic_batch=gears.get("--dynamic_batch_size"),
            dynamic_image_size=gears.get("--dynamic_image_size"),
            dynamic_dims=gears.get("--dynamic_dims"),
            output=user_value(cmd, wrong, "--output"),
            precision_mode=precision_mode or user_value(cmd, wrong, "--precision_mode_v2", "--precision_mode"),
        )
        tries.append(mine)
        for dropped in (("dynamic_batch", "dynamic_image_size", "dynamic_dims"), ("input_shapes",), ("precision_mode",)):
            mine = {**mine, **{key: None for key in dropped}}
            tries.append(mine)
    tries.append(dict(precision_mode=precision_mode))
    for kwargs in tries:
        try:
            written = build_command(model, model_path, chip, cann=cann, **kwargs)
        except AtcCheckError:
            continue
        if cmd is None:
            return written
        takes = {name: info.takes_value for name, info in known_flags().items()}
        return keep_user_flags(written, cmd, result.findings, takes, wrong)
    return None


def _files_for(script: "str | None") -> "FileBase":
    """Where a command's relative paths are looked up: the current directory, and a script's folder."""
    from atccheck.atc.command_files import FileBase

    return FileBase(os.getcwd(), os.path.dirname(os.path.abspath(script)) if script is not None else None)


def _lint(given, text, where, soc, cann, fmt, precision_mode, models=None, settings=None):
    from atccheck.atc.lint import lint_command

    model, model_path = given if given is not None else (None, None)
    files = _files_for(where if where != "<command>" else None)
    result = lint_command(text, model, model_path=model_path, soc=soc, cann=cann, files=files, model_for=models)
    if models is not None and result.commands:
        model, model_path = models(result.commands[0])  # the suggestion is for the first command's model
    suggested = (_suggestion(model, model_path, result, soc, cann, precision_mode, settings)
                 if model is not None else None)
    note = models.note() if models is not None else None
    if note:
        click.echo(f"atccheck: note: {note}", err=True)
    if fmt == "json":
        doc = {
            "source": where,
            "commands": [{"line": c.line, "argv": ["atc", *c.argv]} for c in result.commands],
            "summary": {**result.counts(), "total": len(result.findings)},
            "findings": [f.to_dict() for f in result.findings],
            "suggested": suggested.to_dict() if suggested else None,
            "model_checks_skipped": [{"line": line, "model": path, "why": why}
                                     for line, (path, why) in sorted((models.unread if models else {}).items())],
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
