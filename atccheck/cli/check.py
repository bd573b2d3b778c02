"""atccheck check: predict every problem ATC would hit converting models for one or more chips."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from atccheck.cli.config import SETTINGS_HELP, settings_from_options, settings_options
from atccheck.cli.options import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    error_boundary,
    note_profile,
    use_color,
    write_output,
)
from atccheck.emit import FORMATS

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.batch import Outcome
    from atccheck.report import Report

STDOUT = "-"

EPILOG = f"""\b
Outputs: --format FMT and -o FILE pair up in order, so
  --format text --format sarif -o - -o out.sarif
prints text and writes SARIF to out.sarif ('-o -' is stdout; at most one format goes there).
Without -o a single --format goes to stdout. Formats: {', '.join(sorted(FORMATS))}.
With a folder or several models, --format html -o DIR writes DIR/index.html and
one page per model beside it (-o FILE.html: that file is the index).

\b
Exit codes:
  0  no model x chip has a finding at or above --fail-on
     (with --baseline: no new one; with --write-baseline: always, once written)
  1  some model x chip has such a finding
  2  usage error, or some model could not be checked (missing, empty, not ONNX,
     a folder without models): a broken file must fail CI
  130  interrupted (Ctrl-C): no report file is written

{SETTINGS_HELP}
"""


def pair_outputs(formats: Sequence[str], outputs: Sequence[str]) -> list[tuple[str, str | None]]:
    """(format, file or None for stdout) for each requested output."""
    from atccheck.errors import UsageError

    formats = list(formats) or ["text"]
    if not outputs:
        if len(formats) > 1:
            raise UsageError(f"{len(formats)} --format options need one -o each, in the same order ('-o -' is stdout)")
        return [(formats[0], None)]
    if len(outputs) != len(formats):
        raise UsageError(
            f"{len(formats)} --format but {len(outputs)} -o: give one -o per --format, in the same order ('-o -' is stdout)"
        )
    pairs = [(fmt, None if out == STDOUT else out) for fmt, out in zip(formats, outputs)]
    if sum(1 for _, out in pairs if out is None) > 1:
        raise UsageError("only one format can go to stdout ('-o -')")
    files = [os.path.realpath(out) for _, out in pairs if out is not None]
    if len(files) != len(set(files)):
        raise UsageError("two outputs name the same file")
    return pairs


@contextmanager
def progress_bar(total: int) -> Iterator[Any]:
    """A rich progress bar on stderr when it is a terminal and there is more than one model."""
    if total < 2 or not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()) or os.environ.get("NO_COLOR"):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[last]}"))
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("check", total=total, last="")

        def advance(model: str, _outcome: "Outcome") -> None:
            progress.update(task, advance=1, last=os.path.basename(model))

        yield advance


def written_line(destinations: Sequence[tuple[str, str | None]], reports: Sequence["Report"],
                 unchecked: Sequence[Any], fail_on: str) -> str:
    """'wrote out.sarif (sarif): 2 errors, 1 warning, 0 info in 1 check; fails --fail-on error'."""
    files = ", ".join(f"{path} ({fmt})" for fmt, path in destinations)
    counts = {key: sum(r.counts()[key] for r in reports) for key in ("error", "warning", "info")}
    failing = sum(1 for r in reports if r.fails(fail_on))
    verdict = (f"{failing} of {len(reports)} fail" if len(reports) > 1 else "fails") if failing else "passes"
    text = (f"wrote {files}: {counts['error']} error{'s' if counts['error'] != 1 else ''}, {counts['warning']} "
            f"warning{'s' if counts['warning'] != 1 else ''}, {counts['info']} info in {len(reports)} "
            f"check{'s' if len(reports) != 1 else ''}; {verdict} --fail-on {fail_on}")
    if unchecked:
        text += f"; {len(unchecked)} model{'s' if len(unchecked) != 1 else ''} could not be checked"
    return text


def exit_code(reports: Sequence["Report"], unchecked: Sequence[Any], fail_on: str, wrote_baseline: bool) -> int:
    if unchecked:
        return EXIT_ERROR
    if wrote_baseline:
        return EXIT_CLEAN
    return EXIT_FINDINGS if any(r.fails(fail_on) for r in reports) else EXIT_CLEAN


@click.command("check", epilog=EPILOG)
@click.argument("models", nargs=-1, required=True, type=click.Path(path_type=str))
@settings_options
@click.option("--format", "formats", multiple=True, type=click.Choice(sorted(FORMATS)),
              help="Report format (default text); repeat with one -o each for several reports.")
@click.option("-o", "--output", "outputs", multiple=True, metavar="FILE",
              help="Write the matching --format to FILE ('-' = stdout); repeatable.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=1, show_default=True,
              help="Check models in N worker processes (0: one per CPU).")
@click.option("--baseline", "baseline_file", type=click.Path(dir_okay=False, path_type=str), metavar="FILE",
              help="Hide findings recorded in FILE, fail only on new ones, list recorded ones that are gone.")
@click.option("--write-baseline", "write_baseline_file", type=click.Path(dir_okay=False, path_type=str), metavar="FILE",
              help="Record every finding of this run in FILE (and exit 0 unless a model could not be checked).")
@click.option("-v", "--verbose", is_flag=True, help="List every node and the source of each fact (text format).")
@click.option("--dynamic-batch", metavar="B1,B2,...",
              help='Batch gears, as atc --dynamic_batch_size: "1,2,4,8"; each gear is checked as a static model.')
@click.option("--dynamic-image-size", metavar='"H,W;H,W"',
              help='Image-size gears, as atc --dynamic_image_size: "224,224;448,448".')
@click.option("--dynamic-dims", metavar='"D,..;D,.."',
              help="Gears for every -1 of --input-shape in order, as atc --dynamic_dims.")
@click.option("--numerics", is_flag=True,
              help="Also simulate --precision-mode's float16/bfloat16 compute with onnxruntime (reads the weights): "
                   "float16-overflow, float16-precision-loss and the --keep_dtype list that restores the outputs.")
@click.option("--inputs", "numerics_inputs", type=click.Path(dir_okay=False, path_type=str), metavar="SAMPLE.npz",
              help="With --numerics: arrays keyed by input name, simulated besides seeded random inputs.")
@click.option("--keep-dtype-out", type=click.Path(dir_okay=False, path_type=str), metavar="FILE",
              help="With --numerics: write the --keep_dtype list (node names, one a line) to FILE; the atc command "
                   "names it.")
@error_boundary
def check_command(models, formats, outputs, jobs, baseline_file, write_baseline_file, verbose, dynamic_batch,
                  dynamic_image_size, dynamic_dims, numerics, numerics_inputs, keep_dtype_out, **params):
    """Check MODELS (.onnx files, or folders searched for them) for ATC conversion to each --soc.

    Loads each graph once without reading external weights, infers shapes, and checks every
    op, opset, attribute, dtype and size against each chip's support tables. Several --soc
    give a model x chip matrix; a folder gives every .onnx below it. With a gear option
    (--dynamic-batch, --dynamic-image-size, --dynamic-dims; -1 in --input-shape or a symbolic
    dim marks the gear axes) each gear is checked as the static model ATC builds for it.
    """
    from atccheck.atc.command import GEAR_KEYWORDS, resolve_gears
    from atccheck.batch import check_models, discover, summary_table, worker_count
    from atccheck.emit import render
    from atccheck.engine import rule_selected
    from atccheck.errors import UsageError
    from atccheck.rules import all_rules
    from atccheck.target import resolve_target, soc_name_note

    settings = settings_from_options(params)
    destinations = pair_outputs(formats, outputs)
    if baseline_file and write_baseline_file:
        raise UsageError("--baseline and --write-baseline exclude each other (rewrite a baseline with --write-baseline alone)")
    if not settings.socs:
        raise UsageError("no chip to check for: give --soc SOC_VERSION (repeat for several) or set soc in [tool.atccheck]")
    note_profile(settings.cann)
    targets = []
    for soc in settings.socs:
        target = resolve_target(soc, settings.cann, settings.precision_mode)
        if all(t.soc.name != target.soc.name for t in targets):
            targets.append(target)
            note = soc_name_note(target.soc)
            if note:
                click.echo(f"atccheck: note: {note}", err=True)
    baseline = None
    if baseline_file:
        from atccheck.baseline import load_baseline  # hashlib and OpenSSL only when a baseline is used

        baseline = load_baseline(baseline_file)
    gears = resolve_gears(dynamic_batch, dynamic_image_size, dynamic_dims)

    def gears_for(model: str):
        """The command line's gear option for every model, else the model's input-shapes entry's."""
        if gears is not None:
            return gears
        option = settings.gears_for(model)
        return resolve_gears(**{GEAR_KEYWORDS[option[0]]: option[1]}) if option else None

    paths, unchecked = discover(models)
    from atccheck.fileio import refuse_overwriting_inputs

    refuse_overwriting_inputs(
        [*(("-o", out) for _, out in destinations), ("--write-baseline", write_baseline_file),
         ("--keep-dtype-out", keep_dtype_out)],
        paths,
        [("--baseline", baseline_file), ("--config", settings.config_path), ("--inputs", numerics_inputs)],
    )
    workers = worker_count(jobs)
    if jobs > workers and len(paths) > 1:
        click.echo(f"atccheck: note: -j {jobs} is more than the {workers} CPU(s) this process can use; "
                   f"checking with {workers} worker(s)", err=True)
    # The loaded graph is kept for one model only: atc-precheck, the one format that reads it,
    # refuses more than one report anyway.
    keep_context = len(paths) == 1
    options: dict[str, Any] | None = {"device_memory": settings.device_memory} if settings.device_memory else None
    if numerics or numerics_inputs or keep_dtype_out:
        options = {**(options or {}), "numerics": _numerics_request(numerics, numerics_inputs, keep_dtype_out, paths,
                                                                    targets, gears)}
    with progress_bar(len(paths)) as advance:
        result = check_models(
            paths,
            targets,
            shapes_for=settings.shapes_for,
            select=settings.select,
            ignore=settings.ignore,
            options=options,
            jobs=workers,
            keep_context=keep_context,
            on_done=advance,
            gears_for=gears_for,
        )
    reports = [settings.apply(r) for r in result.reports]
    unchecked = [*unchecked, *result.unchecked]

    outcome = None
    if baseline is not None:
        from atccheck.baseline import compare

        outcome = compare(baseline, reports)
        reports = list(outcome.reports)
    if write_baseline_file:
        from atccheck.baseline import write_baseline

        write_baseline(reports, write_baseline_file)

    collection = len(models) > 1 or len(targets) > 1 or any(os.path.isdir(m) for m in models)
    opts = {
        "verbose": verbose,
        "fail_on": settings.fail_on,
        "unchecked": tuple(unchecked),
        "collection": collection,
        "rules": [r for r in all_rules() if rule_selected(r, settings.select, settings.ignore)],
        "rule_docs_url": settings.rule_docs_url,
        "baseline": outcome,
    }
    rendered = []
    for fmt, path in destinations:
        if fmt == "html" and path is not None and (len(models) > 1 or any(os.path.isdir(m) for m in models)):
            from atccheck.emit.html import site_files  # directory mode: an index page and a page per model

            rendered.extend((page, file) for file, page in site_files(reports, path, **opts).items())
            continue
        if fmt == "atc-precheck" and not reports and unchecked:
            continue  # ATC's one-model file has no form for "not checked": the error lines below say why
        text = render(fmt, reports, color=path is None and use_color(), **opts)
        if fmt == "text" and len(reports) + len(unchecked) > 1:
            text += "\n" + summary_table(reports, unchecked, settings.fail_on)
        rendered.append((text, path))
    for text, path in rendered:
        try:
            write_output(text, path)
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None

    from atccheck.emit._grouping import one_line

    if keep_dtype_out:
        _write_keep_list(reports, keep_dtype_out)
    if reports and all(path is not None for _, path in destinations):  # nothing went to the terminal: say where it went
        click.echo(f"atccheck: {written_line(destinations, reports, unchecked, settings.fail_on)}", err=True)
    for item in unchecked:
        click.echo(f"atccheck: error: {one_line(f'{item.path}: {item.problem}')}", err=True)
    if outcome is not None:
        click.echo(f"atccheck: baseline {baseline_file}: {outcome.summary()}", err=True)
        for entry in outcome.gone:
            click.echo(f"  no longer occurs: {entry.describe()}", err=True)
        if outcome.gone:
            click.echo(f"  (rewrite the baseline with --write-baseline {baseline_file} to drop them)", err=True)
    if write_baseline_file:
        total = sum(len(r.findings) for r in reports)
        click.echo(f"atccheck: wrote baseline {write_baseline_file} with {total} finding{'s' if total != 1 else ''}", err=True)
    sys.exit(exit_code(reports, unchecked, settings.fail_on, bool(write_baseline_file)))


def _numerics_request(numerics: bool, inputs: str | None, keep_out: str | None, paths: Sequence[str],
                      targets: Sequence[Any], gears: Any) -> Any:
    from atccheck.errors import UsageError
    from atccheck.precision.preflight import NumericsRequest

    if not numerics:
        given = "--inputs" if inputs else "--keep-dtype-out"
        raise UsageError(f"{given} belongs to --numerics (the precision preflight); add --numerics")
    if keep_out and (len(paths) != 1 or len(targets) != 1):
        raise UsageError("--keep-dtype-out writes the keep list of one model for one --soc")
    if gears is not None:
        raise UsageError("--numerics simulates one static model: give --input-shape instead of a gear option")
    return NumericsRequest(inputs=inputs, keep_dtype_out=keep_out)


def _write_keep_list(reports: Sequence["Report"], path: str) -> None:
    """Write the --keep_dtype file the preflight found, or say why there is none."""
    from atccheck.cli.options import write_output
    from atccheck.errors import UsageError
    from atccheck.precision.preflight import keep_file_text

    result = reports[0].numerics if reports else None
    if result is None or result.keep is None or not result.keep.nodes:
        why = (result.error or result.keep_note) if result is not None else None
        why = why or "the outputs stay within the thresholds"
        click.echo(f"atccheck: no --keep_dtype list written to {path}: {why}", err=True)
        return
    if not result.keep.restored:
        click.echo(f"atccheck: no --keep_dtype list written to {path}: no list restores the outputs "
                   f"({result.keep.note})", err=True)
        return
    try:
        write_output(keep_file_text(result.keep.nodes), path)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    click.echo(f"atccheck: wrote --keep_dtype list {path} ({len(result.keep.nodes)} node"
               f"{'s' if len(result.keep.nodes) != 1 else ''})", err=True)
