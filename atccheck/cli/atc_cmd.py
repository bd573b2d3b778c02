"""atccheck atc-cmd: print the exact atc command for a model and a chip, or lint your own."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

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
                   "(relative to the script's folder; MODEL is then optional, used where that file is missing).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@config_file_options
@error_boundary
def atc_cmd_command(model, dynamic_batch, dynamic_image_size, dynamic_dims, atc_output, lint_text, lint_file, fmt,
                    **params):
    """Print the atc command that converts MODEL for --soc, or lint an existing one.

    The command always has --framework=5, --model, --output (a base name), --soc_version in
    ATC's spelling, --input_format and --input_shape (every real input in graph order, static
    models too: it records the shape the .om is built for). Requests ATC would reject
    (gear rules, -1 on Ascend310/310B, bf16 on chips without it) exit 2 naming ATC's error code.

    With --lint/--lint-file, each defect of the command (unknown or glued flags, a space after
    '=', wrong soc literals, input names not in MODEL, gear rules, NHWC for ONNX, ...) is listed
    with the ATC error it would cause; exit 1 when one is an error. With --lint-file, each
    command is checked against the model its --model names, read relative to the script's
    folder; where that file is missing, against MODEL (when it has the same file name), else
    without the checks against a model (a note says which lines).
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
        models = ScriptModels(os.path.dirname(lint_file) or ".", given) if lint_file is not None else None
        _lint(given, text, lint_file or "<command>", soc, cann, fmt, precision_mode, models, settings)
        return
    assert loaded is not None and model is not None
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
    if fmt == "json":
        write_output(json.dumps(command.to_dict(), indent=2, ensure_ascii=False) + "\n", None)
    else:
        write_output(command.line + "\n", None)
        for note in command.notes:
            click.echo(f"# note: {note}", err=True)
    sys.exit(EXIT_CLEAN)


# A shell script of atc commands is a few KiB; anything past this is not one.
SCRIPT_LIMIT = 4 * 2**20


def _read_script(path: str) -> str:
    from atccheck.fileio import read_small_file

    return read_small_file(path, "--lint-file", limit=SCRIPT_LIMIT).decode("utf-8", errors="replace")


class ScriptModels:
    """The model each command of a script converts: its --model read relative to the script's
    folder where that file exists; else the MODEL argument when it has the same file name (or the
    command names none it can be told by); else none, and why (the checks against a model are
    skipped for that command)."""

    def __init__(self, folder: str, given: "tuple[Any, str] | None") -> None:
        self.folder = folder
        self.given = given
        self.unread: dict[int, tuple[str, str]] = {}  # command line -> (model path, why it was not read)
        self._cache: dict[str, Any] = {}

    def path_of(self, cmd) -> str | None:
        """--model as ATC gets it from this script, or None (absent, or a shell expansion)."""
        occurrence = cmd.last("--model")
        if occurrence is None or not occurrence.value or occurrence.has_expansion:
            return None
        value = occurrence.value.strip('"')
        return value if os.path.isabs(value) else os.path.normpath(os.path.join(self.folder, value))

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
    """The command atccheck would write for the same chip, keeping every option of the user's
    command the lint did not judge wrong (--output, shapes, gears, precision): an option whose
    value has an error finding is left out (a spelling defect, such as a glued flag or an
    unquoted ';', keeps the value the user meant), and where the rest still make no valid
    command, the gears, then the shapes, then the precision mode are dropped in turn. The
    settings' shapes and gears for the model stand in for those the command does not keep."""
    from atccheck.atc.command import build_command
    from atccheck.atc.facts import gear_flags, valid_soc_names
    from atccheck.atc.lint.rules import command_rule
    from atccheck.errors import AtcCheckError
    from atccheck.findings import Severity

    cmd = result.commands[0] if result.commands else None
    chip = soc
    if cmd is not None and cmd.value("--soc_version") in valid_soc_names():
        chip = chip or cmd.value("--soc_version")
    if not chip:
        return None
    tries = []
    if cmd is not None:
        wrong = {f.location.node for f in result.findings if f.severity is Severity.ERROR
                 and f.data.get("line") == cmd.line and command_rule(f.name).stage == "values"}

        def kept(*flags: str) -> str | None:
            for flag in flags:
                occurrence = cmd.last(flag)
                if occurrence is not None and occurrence.value and flag not in wrong and not occurrence.has_expansion:
                    return occurrence.value.strip('"')
            return None

        gears = {flag: kept(flag) for flag in gear_flags()}
        configured = settings.gears_for(model_path) if settings is not None and model_path else None
        if configured is not None and not any(gears.values()):
            gears[configured[0]] = configured[1]
        shapes = kept("--input_shape")
        if shapes is None and settings is not None and model_path:
            shapes = settings.shapes_for(model_path)
        mine = dict(
            input_shapes=shapes,
            dynamic_batch=gears.get("--dynamic_batch_size"),
            dynamic_image_size=gears.get("--dynamic_image_size"),
            dynamic_dims=gears.get("--dynamic_dims"),
            output=kept("--output"),
            precision_mode=precision_mode or kept("--precision_mode_v2", "--precision_mode"),
        )
        tries.append(mine)
        for dropped in (("dynamic_batch", "dynamic_image_size", "dynamic_dims"), ("input_shapes",), ("precision_mode",)):
            mine = {**mine, **{key: None for key in dropped}}
            tries.append(mine)
    tries.append(dict(precision_mode=precision_mode))
    for kwargs in tries:
        try:
            return build_command(model, model_path, chip, cann=cann, **kwargs)
        except AtcCheckError:
            continue
    return None


def _lint(given, text, where, soc, cann, fmt, precision_mode, models=None, settings=None):
    from atccheck.atc.lint import lint_command

    model, model_path = given if given is not None else (None, None)
    result = lint_command(text, model, model_path=model_path, soc=soc, cann=cann, model_for=models)
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
    return "\n".join(lines) + "\n"
