"""Option groups shared by the subcommands, and the error boundary of the CLI."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any

import click

from atccheck.tables import tables
from atccheck.target import DEFAULT_PRECISION_MODE, DEFAULT_PROFILE

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command stopped by Ctrl-C

FAIL_ON_CHOICES = ("error", "warning", "info", "never")


def soc_option(multiple: bool = False, required: bool = True) -> Callable:
    return click.option(
        "--soc",
        "soc",
        required=required,
        multiple=multiple,
        metavar="SOC_VERSION",
        help="Target chip, as ATC's --soc_version (case-insensitive): Ascend310, Ascend310P3, Ascend910B3, ..."
        + (" Repeat for several chips." if multiple else ""),
    )


def _profiles_text() -> str:
    """'5.0, 6.0, 8.0 or 9.0': the profile ids of the tables."""
    ids = sorted(tables().profiles)
    return ", ".join(ids[:-1]) + f" or {ids[-1]}" if len(ids) > 1 else ids[0]


cann_option = click.option(
    "--cann",
    default=DEFAULT_PROFILE,
    show_default=True,
    metavar="PROFILE",
    help=f"CANN profile: {_profiles_text()} (see 'atccheck targets').",
)
input_shape_option = click.option(
    "--input-shape",
    "input_shape",
    metavar="SHAPES",
    help='Static input shapes, as ATC: "x:1,3,224,224;mask:1,128"; -1 keeps a dim dynamic.',
)
precision_option = click.option(
    "--precision-mode",
    "precision_mode",
    default=DEFAULT_PRECISION_MODE,
    show_default=True,
    metavar="MODE",
    help="ATC --precision_mode (or --precision_mode_v2) value the model will be built with.",
)
fail_on_option = click.option(
    "--fail-on",
    type=click.Choice(FAIL_ON_CHOICES),
    default="error",
    show_default=True,
    help="Lowest severity that makes the exit code 1.",
)


def use_color(stream: Any = None) -> bool:
    stream = stream or sys.stdout
    if os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def fail(message: str) -> None:
    """Print one line on stderr and exit 2 (control characters in the message are escaped)."""
    from atccheck.emit._grouping import one_line

    click.echo(f"atccheck: error: {one_line(message)}", err=True)
    sys.exit(EXIT_ERROR)


def error_boundary(func: Callable) -> Callable:
    """Turn library errors into one line and exit 2; never show a traceback for bad input."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        import warnings

        from atccheck.errors import AtcCheckError

        try:
            with warnings.catch_warnings():
                if not os.environ.get("ATCCHECK_DEBUG"):
                    # onnx and numpy warn about the models they are given; what matters reaches the
                    # user as a finding or an error line, not as a library's warning on stderr
                    warnings.simplefilter("ignore")
                return func(*args, **kwargs)
        except AtcCheckError as exc:
            fail(str(exc))
        except KeyboardInterrupt:
            click.echo("atccheck: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            sys.exit(EXIT_ERROR)
        except MemoryError:
            fail("out of memory")
        except click.exceptions.Exit:
            raise
        except Exception as exc:  # a bug: one line, and the traceback only when asked
            if os.environ.get("ATCCHECK_DEBUG"):
                raise
            fail(f"internal error: {type(exc).__name__}: {exc} (set ATCCHECK_DEBUG=1 for the traceback)")

    return wrapper


def write_output(text: str, path: str | None) -> None:
    """Write to a file (atomically) or to stdout."""
    if path is None or path == "-":
        click.echo(text, nl=False)
        return
    from atccheck.fileio import atomic_write_text

    atomic_write_text(path, text)
