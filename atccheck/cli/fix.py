"""atccheck fix: rewrite a model so atc accepts it, prove it computes the same, write it."""

from __future__ import annotations

import sys

import click

from atccheck.cli.options import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    cann_option,
    error_boundary,
    input_shape_option,
    precision_option,
    soc_option,
    use_color,
)
from atccheck.emit import FIX_FORMATS

EPILOG = """\b
Passes run in this order, each only when a finding calls for it:
  make-inputs-static, simplify, convert-opset, single-opset-import,
  decompose-*, split-large-kernel-conv / pool rewrites, repairs.
Every step is checked (onnx.checker, then onnxruntime against the model before it);
a step that fails is rolled back and reported with its error.

\b
Exit codes:
  0  no error-severity finding remains in the written model, and onnxruntime loads it
  1  some error-severity finding remains (listed with why no pass removed it),
     or onnxruntime cannot load the written model
  2  usage or input error (unreadable model, missing external data, bad --input-shape)
  130  interrupted (Ctrl-C): nothing is written
"""


@click.command("fix", epilog=EPILOG)
@click.argument("model", type=click.Path(dir_okay=False, path_type=str))
@soc_option()
@cann_option
@input_shape_option
@click.option("--inputs", "inputs", type=click.Path(dir_okay=False, path_type=str), metavar="SAMPLE.npz",
              help="Arrays keyed by input name, fed to the original and every rewrite besides seeded random inputs.")
@precision_option
@click.option("-o", "--output", "output", metavar="OUT.onnx", help="Where to write the result (default MODEL.atc.onnx).")
@click.option("--in-place", is_flag=True, help="Overwrite MODEL itself (only when asked; the default never touches it).")
@click.option("--unsafe-fixes", is_flag=True, help="Also run passes that change numerics or rely on an assumption.")
@click.option("--no-verify", is_flag=True, help="Skip the onnxruntime comparison (onnx.checker still runs).")
@click.option("--format", "fmt", type=click.Choice(list(FIX_FORMATS)), default="text", show_default=True)
@click.option("--report", "report_file", metavar="FIX.html", type=click.Path(dir_okay=False, path_type=str),
              help="Also write an HTML report: each applied pass with the graph before and after, the numbers.")
@error_boundary
def fix_command(model, soc, cann, input_shape, inputs, precision_mode, output, in_place, unsafe_fixes, no_verify, fmt,
                report_file):
    """Fix MODEL (an .onnx file) for ATC conversion to one chip.

    Removes every finding of 'atccheck check' that a graph rewrite can remove, proves the
    new model computes what the old one did, checks it again and writes it (MODEL.atc.onnx by
    default; external data beside it when the input has external data). Prints a before/after
    summary, what each pass did, the findings that remain with why no pass removed them, and
    the atc command line for the new file.
    """
    from atccheck.fileio import refuse_overwriting_inputs
    from atccheck.fixing.pipeline import fix

    refuse_overwriting_inputs([("-o", output)], [], [("--inputs", inputs)])
    steps = None
    if report_file:
        from atccheck.emit.html import FixSteps

        steps = FixSteps()  # each pass drawn before and after itself
    outcome = fix(
        model,
        soc=soc,
        cann=cann,
        input_shapes=input_shape,
        inputs=inputs,
        output=output,
        in_place=in_place,
        unsafe_fixes=unsafe_fixes,
        verify=not no_verify,
        precision_mode=precision_mode,
        on_step=steps,
    )
    if report_file:
        from atccheck.cli.options import write_output
        from atccheck.emit.html import render_fix
        from atccheck.errors import UsageError

        try:
            write_output(render_fix(outcome, steps=steps), report_file)
        except OSError as exc:
            raise UsageError(f"cannot write {report_file}: {exc.strerror or exc}") from None
    from atccheck.emit import fix_renderer

    click.echo(fix_renderer(fmt)(outcome, color=use_color()), nl=False)
    sys.exit(EXIT_FINDINGS if outcome.fails() else EXIT_CLEAN)
