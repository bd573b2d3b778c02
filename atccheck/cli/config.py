"""atccheck config: the settings ``atccheck check`` would use here, and where each comes from.

Also home of the option group both commands share, so that ``atccheck config`` answers for
exactly the command line ``atccheck check`` gets.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from atccheck.cli.options import (
    cann_option,
    error_boundary,
    fail_on_option,
    input_shape_option,
    precision_option,
    soc_option,
)

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.config import Settings

SETTINGS_HELP = (
    "Settings come from [tool.atccheck] in pyproject.toml or from .atccheck.toml (the first found "
    "walking up from the working directory); an option given on the command line replaces the "
    "file's value. 'atccheck config' shows the result."
)


def config_file_options(func: Callable) -> Callable:
    """--config and --no-config: every command that takes settings reads the same file."""
    options = [
        click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=str), metavar="FILE",
                     help="Read settings from FILE (a pyproject.toml or .atccheck.toml) instead of searching."),
        click.option("--no-config", is_flag=True, help="Ignore configuration files."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def settings_options(func: Callable) -> Callable:
    """The options that make up Settings, for check and config alike."""
    options = [
        soc_option(multiple=True, required=False),
        cann_option,
        input_shape_option,
        precision_option,
        click.option("--select", multiple=True, metavar="RULES",
                     help="Only these rules: codes, names or prefixes, repeated or comma-separated (AC1,dynamic-)."),
        click.option("--ignore", multiple=True, metavar="RULES", help="Skip these rules (same forms as --select)."),
        fail_on_option,
        click.option("--device-memory", type=click.FloatRange(min=0, min_open=True), metavar="GIB",
                     help="Device memory budget in GiB (overrides the chip's figure)."),
    ]
    for option in reversed(options):
        func = option(func)
    return config_file_options(func)


def settings_from_options(params: dict[str, Any]) -> "Settings":
    """Settings from the parsed options of the current command (only options really given count).

    A command passes the options it has (``fix`` and ``atc-cmd`` have no --select, and one --soc)."""
    from click.core import ParameterSource

    from atccheck.config import load_settings
    from atccheck.errors import UsageError

    ctx = click.get_current_context()

    def given(name: str) -> bool:
        return ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)

    if params.get("config_file") and params.get("no_config"):
        raise UsageError("--config and --no-config exclude each other")
    cli: dict[str, Any] = {}
    soc = params.get("soc")
    if soc:
        cli["socs"] = (soc,) if isinstance(soc, str) else tuple(soc)
    for name in ("cann", "precision_mode", "fail_on"):
        if name in params and params[name] is not None and given(name):
            cli[name] = params[name]
    for name in ("select", "ignore"):
        if params.get(name):
            cli[name] = tuple(params[name])
    if params.get("input_shape") is not None:
        cli["input_shape"] = params["input_shape"]
    if params.get("device_memory") is not None:
        cli["device_memory_gib"] = params["device_memory"]
    settings = load_settings(cli, config=params.get("config_file"), isolated=bool(params.get("no_config")))
    check_file_values(settings)
    return settings


def check_file_values(settings: "Settings") -> None:
    """The chips, profile and precision mode a config file gives, resolved now, so that a bad value
    is one error line naming the file and the key (the command line's own values are checked
    where they are used)."""
    from atccheck.config import COMMAND_LINE, CONFIG_FILE, DEFAULT, FIELD_KEYS
    from atccheck.errors import UsageError
    from atccheck.target import PRECISION_CLASSES, resolve_profile, resolve_soc

    def checked(field: str, resolve: Callable[[], object]) -> None:
        origin = settings.sources.get(field, DEFAULT)
        if origin in (DEFAULT, COMMAND_LINE):
            return
        try:
            resolve()
        except UsageError as exc:
            table = "" if origin.endswith(CONFIG_FILE) else " [tool.atccheck]"
            raise UsageError(f"{origin}{table}: '{FIELD_KEYS[field]}': {exc}") from None

    for soc in settings.socs:
        checked("socs", functools.partial(resolve_soc, soc))
    checked("cann", lambda: resolve_profile(settings.cann))

    def known_mode() -> None:
        if settings.precision_mode not in PRECISION_CLASSES:
            raise UsageError(f"unknown precision mode '{settings.precision_mode}' "
                             f"(values: {', '.join(sorted(PRECISION_CLASSES))})")

    checked("precision_mode", known_mode)


def one_chip(settings: "Settings", command: str) -> str:
    """The one chip a single-chip command (fix, atc-cmd) works for: --soc, else the settings' one soc."""
    from atccheck.errors import UsageError

    if len(settings.socs) > 1:
        where = settings.sources.get("socs", "the settings")
        raise UsageError(f"{command} works for one chip and the settings name {len(settings.socs)} "
                         f"({', '.join(settings.socs)}, from {where}); give --soc SOC_VERSION")
    if not settings.socs:
        raise UsageError(f"no chip: give --soc SOC_VERSION or set soc in [tool.atccheck] ({command} needs one chip)")
    return settings.socs[0]


ORIGIN_COLUMN = 48  # widest setting line the origin comments line up after


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + " }" if value else "{}"
    raise TypeError(type(value))


@click.command("config")
@click.argument("models", nargs=-1, type=click.Path(path_type=str))
@settings_options
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@error_boundary
def config_command(models, fmt, **params):
    """Show the effective settings of 'atccheck check' (fix and atc-cmd read them too) and where each comes from.

    With MODEL arguments, also the input shapes each model gets. The output is valid TOML for
    the [tool.atccheck] table (unset values are commented out), so it can seed a config file.
    """
    from atccheck.batch import discover
    from atccheck.config import describe

    settings = settings_from_options(params)
    rows = describe(settings)
    paths, _ = discover(models) if models else ([], [])
    shapes = {m: settings.shapes_for(m) for m in paths}
    if fmt == "json":
        doc = {
            "config_file": str(settings.config_path) if settings.config_path else None,
            "settings": {key: {"value": value, "from": origin} for key, value, origin in rows},
            "models": [{"model": m, "input_shapes": s, "gears": _gears_text(settings, m)} for m, s in shapes.items()],
        }
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        return
    where = str(settings.config_path) if settings.config_path else "none (defaults and command line only)"
    click.echo(f"# config file: {where}")
    click.echo("[tool.atccheck]")
    body = []
    for key, value, origin in rows:
        if value is None or (value == [] and key == "soc"):
            body.append((f"# {key} = (not set)", origin))
        elif key == "input-shape":  # a command-line option only; the file has input-shapes
            body.append((f"# {key} = {_toml_value(value)}", origin))
        else:
            body.append((f"{key} = {_toml_value(value)}", origin))
    # the origin column lines up after the usual lines; a long value (an input-shapes table) does
    # not push it out for all the others
    width = max((len(line) for line, _ in body if len(line) <= ORIGIN_COLUMN), default=0)
    for line, origin in body:
        click.echo(f"{line.ljust(width)}  # {origin}")
    if shapes:
        click.echo("")
        click.echo("# input shapes per model:")
        for model, text in shapes.items():
            gears = _gears_text(settings, model)
            click.echo(f"#   {model}: {text or 'none (as in the model)'}" + (f", {gears}" if gears else ""))


def _gears_text(settings: "Settings", model: str) -> str | None:
    """The gear option a model gets from its input-shapes entry, as atc writes it."""
    option = settings.gears_for(model)
    return f"{option[0]}={option[1]}" if option else None
