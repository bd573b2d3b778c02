"""atccheck check: predict every problem ATC would hit converting a model for a chip."""

from __future__ import annotations

import sys

import click

from atccheck.emit import FORMATS
from atccheck.cli.options import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    cann_option,
    error_boundary,
    fail_on_option,
    input_shape_option,
    precision_option,
    soc_option,
    use_color,
    write_output,
)


@click.command("check")
@click.argument("model", type=click.Path(dir_okay=True, path_type=str))
@soc_option()
@cann_option
@input_shape_option
@precision_option
@click.option("--format", "fmt", type=click.Choice(sorted(FORMATS)), default="text", show_default=True)
@click.option("-o", "--output", "output", metavar="FILE", help="Write the report to FILE instead of stdout.")
@fail_on_option
@click.option("--select", multiple=True, metavar="CODE|NAME", help="Only these rules (codes, names or prefixes).")
@click.option("--ignore", multiple=True, metavar="CODE|NAME", help="Skip these rules (codes, names or prefixes).")
@click.option("--device-memory", type=float, metavar="GIB", help="Device memory budget in GiB (overrides the chip's figure).")
@click.option("-v", "--verbose", is_flag=True, help="List every node and the source of each fact.")
@error_boundary
def check_command(model, soc, cann, input_shape, precision_mode, fmt, output, fail_on, select, ignore, device_memory, verbose):
    """Check MODEL (an .onnx file) for ATC conversion to one chip.

    Loads the graph without reading external weights, infers shapes, and checks every op,
    opset, attribute, dtype and size against the chip's support tables. Exit code 0 when
    nothing reaches --fail-on, 1 when something does, 2 on a usage or input error.
    """
    from atccheck.emit import render
    from atccheck.engine import check

    memory = int(device_memory * 2**30) if device_memory else None
    report = check(
        model,
        soc=soc,
        cann=cann,
        input_shapes=input_shape,
        precision_mode=precision_mode,
        select=select,
        ignore=ignore,
        device_memory=memory,
    )
    color = output is None and use_color()
    write_output(render(fmt, [report], color=color, verbose=verbose, fail_on=fail_on), output)
    sys.exit(EXIT_FINDINGS if report.fails(fail_on) else EXIT_CLEAN)
