"""HTML: one self-contained page per run, with a picture of the graph around every finding.

The page carries its CSS, script and pictures inline and loads nothing: attach it to a CI run
or an issue. It reads top to bottom without JavaScript (every finding is an open
``<details>`` section); the script only adds the severity and rule filters, the search box
and the copy buttons. Layout (docs/html-report.md):

- header: model, one row per chip (CANN profile, precision mode, counts, verdict against
  ``--fail-on``) and the recommended ``atc`` command of each;
- model overview: inputs with their (symbolic) dims, outputs, opset imports, op-type histogram;
- one section per group of identical findings (rule, severity, ATC error, message, fact
  source, hint, fix pass), with the neighbourhood of its first nodes drawn by
  :mod:`atccheck.emit.graph_svg`.

The graph comes from the report's context (kept when one model is checked); otherwise the
model is read again (graph and shapes only, never weights) to draw it. Several models
(directory mode) give an index page and one page per model: :func:`site_files`.
``atccheck fix --report`` uses :func:`render_fix`.
"""

from __future__ import annotations

import html
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atccheck.domains import is_standard
from atccheck.emit._grouping import message_groups
from atccheck.emit.graph_svg import ARROW_DEFS, HOPS, GraphView, graph_views, picture_for, picture_for_input, render_svg
from atccheck.findings import ROOT_GRAPH, Finding, Severity
from atccheck.report import Report

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.batch import UncheckedModel
    from atccheck.fixing.outcome import FixOutcome
    from atccheck.model.graph import GraphIndex
    from atccheck.model.shapes import ShapeIndex

PICTURED_NODES = 4  # nodes of a group drawn in its picture (all are listed)
LISTED_NODES = 60  # node names listed under a group before "+N more"
INDEX_NAME = "index.html"


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


# --------------------------------------------------------------------------- the model as data


@dataclass
class ModelFacts:
    """What the overview shows, and the graphs to draw neighbourhoods from."""

    views: dict[str, GraphView] = field(default_factory=dict)
    ops: Counter = field(default_factory=Counter)
    inputs: list[tuple[str, tuple | None, str]] = field(default_factory=list)  # name, dims (None: rank unknown), dtype
    outputs: list[tuple[str, tuple | None, str]] = field(default_factory=list)
    problem: str | None = None  # why there is no graph to draw


def _dims(shape: Sequence[object] | None, mark: bool = False) -> str:
    """``[batch, 3, 64, 64]`` as HTML; with ``mark``, symbolic and unknown dims stand out."""
    if shape is None:
        return "rank unknown"
    cells = []
    for d in shape:
        if isinstance(d, int):
            cells.append(str(d))
        else:
            text = esc("?" if d is None else d)
            cells.append(f'<span class="sym">{text}</span>' if mark else text)
    return "[" + ", ".join(cells) + "]"


def model_facts(index: "GraphIndex", shapes: "ShapeIndex") -> ModelFacts:
    """The overview's facts and the graphs of a loaded model (graph only, no weights)."""
    from atccheck.model.shapes import type_info

    def described(values: Iterable) -> list[tuple[str, tuple | None, str]]:
        rows = []
        for vi in values:
            if vi.name in index.initializers:
                continue
            info = type_info(vi.type)
            shape = tuple(info.shape) if info is not None and info.shape is not None else None
            rows.append((vi.name, shape, (info.dtype_name or "?") if info else "?"))
        return rows

    return ModelFacts(
        views=graph_views(index, shapes),
        ops=Counter(g.op_type if is_standard(g.domain) else f"{g.domain}::{g.op_type}"
                    for g in index.nodes),
        inputs=described(index.model.graph.input),
        outputs=described(index.model.graph.output),
    )


class FactsCache:
    """ModelFacts per model: from the report's context, or read again from the model file."""

    def __init__(self) -> None:
        self._facts: dict[tuple, ModelFacts] = {}

    def get(self, report: Report) -> ModelFacts:
        key = (report.model, tuple(sorted(report.input_shapes.items())))
        found = self._facts.get(key)
        if found is None:
            found = self._facts[key] = self._build(report)
        return found

    @staticmethod
    def _build(report: Report) -> ModelFacts:
        if report.context is not None:
            return model_facts(report.context.graph, report.context.shapes)
        if not os.path.isfile(report.model):
            return ModelFacts(problem="the model file is not at hand, so there is no graph to draw")
        from atccheck.engine import prepare
        from atccheck.errors import AtcCheckError

        try:
            prepared = prepare(report.model, report.input_shapes or None)
        except AtcCheckError as exc:
            return ModelFacts(problem=f"the graph could not be read again: {exc}")
        return model_facts(prepared.graph, prepared.shapes)


# --------------------------------------------------------------------------- page pieces


CSS = """
:root{--err:#c62828;--warn:#b26a00;--info:#1565c0;--ok:#2e7d32;--line:#d5d9e0;--bg:#f7f8fa;--fg:#1d2330}
*{box-sizing:border-box}[hidden]{display:none!important}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);margin:0;background:#fff}
main{max-width:1200px;margin:0 auto;padding:16px 20px 40px}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:14px 0 6px}
code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:var(--bg)}td.n{text-align:right;font-variant-numeric:tabular-nums}
.muted{color:#5b6473}.sub{color:#5b6473;margin:0 0 10px}
.verdict{font-weight:600}.fails{color:var(--err)}.passes{color:var(--ok)}
.badge{display:inline-block;min-width:62px;text-align:center;border-radius:10px;padding:0 8px;color:#fff;font-size:12px;font-weight:600;margin-right:6px}
.badge.error{background:var(--err)}.badge.warning{background:var(--warn)}.badge.info{background:var(--info)}
.cmd{display:flex;gap:8px;align-items:flex-start;margin:4px 0 8px}
.cmd pre{flex:1;margin:0;background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:6px 8px;white-space:pre-wrap;word-break:break-all}
button{font:inherit;font-size:12px;padding:3px 10px;border:1px solid #9aa3b2;border-radius:4px;background:#fff;cursor:pointer}
button:hover{background:var(--bg)}
.filters{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line);padding:8px 0;display:flex;flex-wrap:wrap;gap:14px;align-items:center}
.filters input[type=search]{min-width:260px;padding:3px 6px}
details.f{border:1px solid var(--line);border-left:5px solid var(--info);border-radius:4px;margin:10px 0;background:#fff}
details.f.error{border-left-color:var(--err)}details.f.warning{border-left-color:var(--warn)}
details.f>summary{cursor:pointer;padding:6px 10px;background:var(--bg)}
details.f>div{padding:4px 12px 10px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:6px 0}dt{color:#5b6473}dd{margin:0}
.nodes code{background:var(--bg);padding:0 3px;border-radius:3px}
figure{margin:8px 0 0;overflow-x:auto}figcaption{color:#5b6473;font-size:12px}
.pair{display:flex;gap:16px;flex-wrap:wrap}.pair>figure{flex:1;min-width:280px}
svg.nb{display:block;max-width:none;background:#fcfcfd;border:1px solid #eceef2;border-radius:4px}
svg.defs{position:absolute}
svg.nb text{font:11px system-ui,sans-serif;text-anchor:middle;fill:#2a3140}
svg.nb text.op{font-weight:600;font-size:12px}
svg.nb text.el{font-size:10px;fill:#5b6473;text-anchor:start;paint-order:stroke;stroke:#fcfcfd;stroke-width:3px}
svg.nb text.el.m{text-anchor:middle}
svg.nb .e{fill:none;stroke:#8b93a3;stroke-width:1.2;marker-end:url(#ah)}
svg.nb .node rect{fill:#eef1f6;stroke:#8a94a6}
svg.nb .input rect,svg.nb .output rect{fill:#e7f4e8;stroke:#6a9f6d}
svg.nb .more rect{fill:#fff;stroke:#9aa3b2;stroke-dasharray:4 3}
svg.nb .hl rect{fill:#fde3e3;stroke:var(--err);stroke-width:2.2}
.warning svg.nb .hl rect{fill:#fff0d6;stroke:var(--warn)}.info svg.nb .hl rect{fill:#e1ecfb;stroke:var(--info)}
.after svg.nb .hl rect{fill:#e3f3e4;stroke:var(--ok)}
.bar{display:inline-block;height:10px;background:#9fb3d9;border-radius:2px;vertical-align:middle}
.sym{color:var(--err);font-weight:600}
.cols{display:flex;gap:28px;flex-wrap:wrap;align-items:flex-start}.cols>div{min-width:220px;max-width:400px}
table.compact td,table.compact th{padding:1px 8px}
@media print{.filters,button{display:none!important}details.f{break-inside:avoid}}
"""

SCRIPT = """
(function(){
  var all=[].slice.call(document.querySelectorAll('details.f'));
  var text=all.map(function(s){return s.textContent.toLowerCase();});
  var bar=document.getElementById('filters');
  if(bar){
    bar.hidden=false;
    var boxes=[].slice.call(bar.querySelectorAll('input[data-sev]'));
    var rule=document.getElementById('rule'), q=document.getElementById('q'), shown=document.getElementById('shown');
    var apply=function(){
      var sev={}; boxes.forEach(function(b){sev[b.getAttribute('data-sev')]=b.checked;});
      var r=rule.value, term=q.value.trim().toLowerCase(), n=0;
      all.forEach(function(s,i){
        var ok=sev[s.getAttribute('data-sev')]&&(!r||s.getAttribute('data-rule')===r)&&(!term||text[i].indexOf(term)>=0);
        s.hidden=!ok; if(ok){n++;}
      });
      [].slice.call(document.querySelectorAll('section.target')).forEach(function(t){
        var any=t.querySelector('details.f:not([hidden])'), none=t.querySelector('.none-shown');
        if(none){none.hidden=!!any||!t.querySelector('details.f');}
      });
      shown.textContent=n+' of '+all.length+' finding groups shown';
    };
    boxes.forEach(function(b){b.addEventListener('change',apply);});
    rule.addEventListener('change',apply); q.addEventListener('input',apply);
    apply();
  }
  [].slice.call(document.querySelectorAll('button[data-copy]')).forEach(function(b){
    b.hidden=false;
    b.addEventListener('click',function(){
      var t=document.getElementById(b.getAttribute('data-copy')).textContent;
      var done=function(){b.textContent='Copied';setTimeout(function(){b.textContent='Copy';},1500);};
      if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(t).then(done);}
      else{var a=document.createElement('textarea');a.value=t;document.body.appendChild(a);a.select();
        try{document.execCommand('copy');done();}catch(e){}document.body.removeChild(a);}
    });
  });
})();
"""


def _page(title: str, body: Sequence[str]) -> str:
    from atccheck import __version__

    return "".join([
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f'<meta name="generator" content="atccheck {esc(__version__)}">',
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>{ARROW_DEFS}<main>",
        *body,
        f"</main><script>{SCRIPT}</script></body></html>\n",
    ])


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _verdict(failing: bool, fail_on: str) -> str:
    word = "fails" if failing else "passes"
    return f'<span class="verdict {word}">{word} --fail-on {esc(fail_on)}</span>'


class _Ids:
    """Element ids unique within one page."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"


def _command_block(command: Any, ids: _Ids, label: str = "") -> str:
    if command is None:
        return ""
    cid = ids("cmd")
    notes = "".join(f'<li>{esc(n)}</li>' for n in command.notes)
    return (f'<div class="cmd">{esc(label)}<pre id="{cid}">{esc(command.line)}</pre>'
            f'<button type="button" data-copy="{cid}" hidden>Copy</button></div>'
            + (f'<ul class="muted">{notes}</ul>' if notes else ""))


def _targets_table(reports: Sequence[Report], fail_on: str, link: dict[str, str] | None = None) -> str:
    rows = []
    show_model = link is not None
    links = link or {}
    for r in reports:
        c = r.counts()
        cells = []
        if show_model:
            href = links.get(r.model)
            name = f'<a href="{esc(href)}"><code>{esc(r.model)}</code></a>' if href else f"<code>{esc(r.model)}</code>"
            cells.append(f"<td>{name}</td>")
        cells += [f"<td>{esc(r.target.soc.name)}</td>", f"<td>{esc(r.target.profile.id)}</td>",
                  f"<td>{esc(r.target.precision_mode)}</td>", f'<td class="n">{c["error"]}</td>',
                  f'<td class="n">{c["warning"]}</td>', f'<td class="n">{c["info"]}</td>',
                  f"<td>{_verdict(r.fails(fail_on), fail_on)}</td>"]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    head = ("<th>model</th>" if show_model else "") + (
        "<th>chip</th><th>CANN profile</th><th>precision mode</th><th>errors</th><th>warnings</th><th>info</th>"
        "<th>verdict</th>")
    return f'<table class="targets"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _unchecked_block(unchecked: Sequence["UncheckedModel"]) -> str:
    if not unchecked:
        return ""
    items = "".join(f"<li><code>{esc(u.path)}</code>: {esc(u.problem)}</li>" for u in unchecked)
    return f'<h2>Models that could not be checked ({len(unchecked)})</h2><ul class="unchecked">{items}</ul>'


def _overview(report: Report, facts: ModelFacts) -> str:
    parts = ['<details class="overview" open><summary><h2 style="display:inline">Model overview</h2></summary>']
    parts.append('<div class="cols">')
    if facts.inputs:
        symbolic = {d.input for d in report.shapes.symbolic_inputs}
        rows = []
        for name, dims, dtype in facts.inputs:
            fixed = report.input_shapes.get(name)
            shown = _dims(dims, mark=name in symbolic)
            given = f" <span class='muted'>(--input-shape {esc(','.join(map(str, fixed)))})</span>" if fixed else ""
            rows.append(f"<tr><td><code>{esc(name)}</code></td><td>{shown}{given}</td><td>{esc(dtype)}</td></tr>")
        parts.append('<div><h3>Inputs</h3><table><tr><th>name</th><th>dims</th><th>dtype</th></tr>'
                     + "".join(rows) + "</table>")
        if facts.outputs:
            parts.append('<h3>Outputs</h3><table><tr><th>name</th><th>dims</th><th>dtype</th></tr>'
                         + "".join(f"<tr><td><code>{esc(n)}</code></td><td>{_dims(d)}</td><td>{esc(t)}</td></tr>"
                                   for n, d, t in facts.outputs) + "</table>")
        parts.append("</div>")
    opsets = "".join(f"<tr><td><code>{esc(d or 'ai.onnx (default)')}</code></td><td class='n'>{v}</td></tr>"
                     for d, v in report.opset_imports.items())
    parts.append(f"<div><h3>Opset imports</h3><table><tr><th>domain</th><th>version</th></tr>{opsets}</table>")
    s = report.shapes
    notes = []
    if s.unknown_values:
        notes.append(f"{_plural(s.unknown_values, 'value')} with an unknown or symbolic shape after shape inference")
    if s.inference_error:
        notes.append(f"shape inference stopped early: {s.inference_error}")
    if notes:
        parts.append("<h3>Shapes</h3><ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    parts.append("</div>")
    if facts.ops:
        top = max(facts.ops.values())
        op_rows = "".join(
            f"<tr><td><code>{esc(op)}</code></td><td class='n'>{n}</td>"
            f"<td><span class='bar' style='width:{max(2, round(160 * n / top))}px'></span></td></tr>"
            for op, n in sorted(facts.ops.items(), key=lambda kv: (-kv[1], kv[0])))
        parts.append(f"<div><h3>Op types ({len(facts.ops)})</h3><table class='compact'><tr><th>op</th><th>nodes</th><th></th></tr>"
                     f"{op_rows}</table></div>")
    parts.append("</div></details>")
    return "".join(parts)


def _filters(reports: Sequence[Report]) -> str:
    rules = sorted({(f.code, f.name) for r in reports for f in r.findings})
    options = "".join(f'<option value="{esc(c)}">{esc(c)} {esc(n)}</option>' for c, n in rules)
    sev = "".join(f'<label><input type="checkbox" data-sev="{s.value}" checked> {s.value}</label>' for s in Severity)
    return (f'<nav class="filters" id="filters" hidden>{sev}<label>rule <select id="rule"><option value="">all rules'
            f'</option>{options}</select></label><input type="search" id="q" placeholder="search nodes, ops, messages"'
            f' aria-label="search"><span id="shown" class="muted"></span></nav>')


def _nodes_list(group: Sequence[Finding]) -> str:
    nodes = list(dict.fromkeys(f.location.node for f in group if f.location.node))
    if not nodes:
        return ""
    shown = ", ".join(f"<code>{esc(n)}</code>" for n in nodes[:LISTED_NODES])
    more = f" (+{len(nodes) - LISTED_NODES} more)" if len(nodes) > LISTED_NODES else ""
    return f'<dt>nodes ({len(nodes)})</dt><dd class="nodes">{shown}{more}</dd>'


def _picture(group: Sequence[Finding], facts: ModelFacts, hops: int) -> str:
    located = [f for f in group if f.location.node]
    if not located:
        return _input_picture(group, facts, hops)
    graph = located[0].location.graph
    labels = list(dict.fromkeys(f.location.node for f in located if f.location.node and f.location.graph == graph))
    labels = labels[:PICTURED_NODES]
    view = facts.views.get(graph)
    if view is None:
        reason = facts.problem or f"graph {graph} is not in the model"
        return f'<p class="muted">No picture: {esc(reason)}.</p>'
    picture = picture_for(view, labels, hops)
    if picture is None:
        return f'<p class="muted">No picture: node {esc(labels[0])} is not in graph {esc(graph)}.</p>'
    where = "" if graph == ROOT_GRAPH else f" in {graph}"
    more = len(dict.fromkeys(f.location.node for f in located)) - len(labels)
    caption = (f"{', '.join(labels)}{where}: {hops} hops of producers and consumers"
               + (f"; {more} more node{'s' if more != 1 else ''} of this group not drawn" if more > 0 else ""))
    return f"<figure>{render_svg(picture, caption)}<figcaption>{esc(caption)}</figcaption></figure>"


def _input_picture(group: Sequence[Finding], facts: ModelFacts, hops: int) -> str:
    """A model-level finding about a graph input (its dims, say): the input and its readers."""
    tensor = group[0].data.get("input") if group[0].data else None
    view = facts.views.get(ROOT_GRAPH)
    if not isinstance(tensor, str) or view is None:
        return ""
    picture = picture_for_input(view, tensor, hops)
    if picture is None:
        return ""
    caption = f"input {tensor} and the nodes reading it"
    return f"<figure>{render_svg(picture, caption)}<figcaption>{esc(caption)}</figcaption></figure>"


def finding_section(group: Sequence[Finding], facts: ModelFacts, hops: int = HOPS, extra: str = "") -> str:
    """One group of identical findings: a ``<details class="f">`` with facts and a picture."""
    f = group[0]
    sev = f.severity.value
    nodes = sum(1 for g in group if g.location.node)
    title = f"{f.code} {f.name}" + (f" ({_plural(nodes, 'node')})" if nodes > 1 else "")
    if f.fix.pass_name == "manual":
        fix = "manual"
    else:
        fix = f"<code>{esc(f.fix.pass_name)}</code> ({'safe' if f.fix.safe else 'unsafe'}): run <code>atccheck fix</code>"
    rows = [
        f"<dt>ATC error</dt><dd>{esc(f.atc_error)}</dd>" if f.atc_error else "",
        f"<dt>fix</dt><dd>{fix}</dd>",
        f"<dt>hint</dt><dd>{esc(f.hint)}</dd>",
        f"<dt>fact</dt><dd>{esc(f.source)}</dd>",
        _nodes_list(group),
        extra,
    ]
    return (f'<details class="f {sev}" data-sev="{sev}" data-rule="{esc(f.code)}" open>'
            f'<summary><span class="badge {sev}">{sev}</span><b>{esc(title)}</b>: {esc(f.message)}</summary>'
            f'<div><dl>{"".join(rows)}</dl>{_picture(group, facts, hops)}</div></details>')


def _target_section(report: Report, facts: ModelFacts, fail_on: str, hops: int, ids: _Ids, several: bool) -> str:
    c = report.counts()
    head = (f'<section class="target"><h2>{esc(report.target.describe())}: {c["error"]} errors, '
            f'{c["warning"]} warnings, {c["info"]} info, {_verdict(report.fails(fail_on), fail_on)}</h2>')
    body = [head]
    if several:
        body.append(_command_block(report.atc_command, ids, ""))
    groups = message_groups(report.findings)
    if not groups:
        body.append('<p class="passes">No findings: ATC accepts this model for this chip as far as atccheck knows.</p>')
    else:
        body.append('<p class="none-shown muted" hidden>No finding matches the filters.</p>')
    body.extend(finding_section(g, facts, hops) for g in groups)
    body.append("</section>")
    return "".join(body)


def _model_page_body(reports: Sequence[Report], facts: ModelFacts, fail_on: str, hops: int, ids: _Ids,
                     filters: str = "") -> list[str]:
    first = reports[0]
    several = len(reports) > 1
    body = [f"<header><h1>atccheck report: <code>{esc(first.model)}</code></h1>",
            f'<p class="sub">{_plural(first.node_count, "node")}; checked for {_plural(len(reports), "chip")}</p>',
            _targets_table(reports, fail_on)]
    if not several:
        if first.atc_command is not None:
            body.append("<h3>Recommended atc command</h3>" + _command_block(first.atc_command, ids))
        else:
            body.append('<p class="muted">No atc command in this report: none ATC would accept could be written for '
                        "this model and chip ('atccheck atc-cmd' says why).</p>")
    body.append("</header>")
    body.append(_overview(first, facts))
    body.append(filters)
    body.extend(_target_section(r, facts, fail_on, hops, ids, several) for r in reports)
    return body


def _by_model(reports: Sequence[Report]) -> dict[str, list[Report]]:
    grouped: dict[str, list[Report]] = {}
    for r in reports:
        grouped.setdefault(r.model, []).append(r)
    return grouped


# --------------------------------------------------------------------------- check


def render(
    reports: Sequence[Report],
    *,
    unchecked: Sequence["UncheckedModel"] = (),
    fail_on: str = "error",
    hops: int = HOPS,
    **_: Any,
) -> str:
    """Every report in one page: a model's chips together, models one after another."""
    cache = FactsCache()
    ids = _Ids()
    models = _by_model(reports)
    body: list[str] = []
    if len(models) > 1 or unchecked:
        failing = sum(1 for r in reports if r.fails(fail_on))
        body.append(f"<h1>atccheck: {failing} of {_plural(len(reports), 'model x chip check')} fail</h1>")
        body.append(_targets_table(reports, fail_on, link={m: f"#m{i}" for i, m in enumerate(models)}))
        body.append(_unchecked_block(unchecked))
        body.append(_filters(reports))
    for i, group in enumerate(models.values()):
        body.append(f'<article id="m{i}">')
        filters = _filters(reports) if len(models) == 1 and not unchecked else ""
        body.extend(_model_page_body(group, cache.get(group[0]), fail_on, hops, ids, filters))
        body.append("</article>")
    title = f"atccheck: {next(iter(models))}" if len(models) == 1 else "atccheck report"
    return _page(title, body)


def page_name(model: str, taken: set[str], common: str = "") -> str:
    """The file name of a model's page in directory mode: its path below the folder all
    checked models share, separators as '_'.

    ``models/vision/resnet.onnx`` (of models in ``models/``) -> ``vision_resnet.html``; a name
    already taken gets ``-2``, ``-3``, ...
    """
    if common:
        model = os.path.relpath(model, common)
    stem = model[:-5] if model.lower().endswith(".onnx") else model
    stem = re.sub(r"^[./\\]+", "", stem)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("_.") or "model"
    name, n = f"{stem}.html", 1
    while name in taken or name == INDEX_NAME:
        n += 1
        name = f"{stem}-{n}.html"
    taken.add(name)
    return name


def site_files(
    reports: Sequence[Report],
    destination: str,
    *,
    unchecked: Sequence["UncheckedModel"] = (),
    fail_on: str = "error",
    hops: int = HOPS,
    **_: Any,
) -> dict[str, str]:
    """Directory mode: an index page and one page per model, as {path: html}.

    ``destination`` ending in ``.html`` is the index itself, with the model pages beside it;
    anything else is a folder that gets ``index.html`` and the model pages.
    """
    if destination.lower().endswith(".html"):
        index = destination
        folder = os.path.dirname(destination)
    else:
        folder = destination
        index = os.path.join(destination, INDEX_NAME)
    models = _by_model(reports)
    taken = {os.path.basename(index)}
    try:
        common = os.path.commonpath([os.path.dirname(os.path.abspath(m)) for m in models]) if models else ""
    except ValueError:  # paths on different drives
        common = ""
    names = {model: page_name(model if not common else os.path.abspath(model), taken, common) for model in models}
    files: dict[str, str] = {}
    failing = sum(1 for r in reports if r.fails(fail_on))
    body = [f"<h1>atccheck: {failing} of {_plural(len(reports), 'model x chip check')} fail</h1>",
            f'<p class="sub">{_plural(len(models), "model")} checked; one page per model, linked below.</p>',
            _targets_table(reports, fail_on, link=names), _unchecked_block(unchecked)]
    files[index] = _page("atccheck report index", body)
    for model, group in models.items():
        facts = FactsCache().get(group[0])  # one model's graph in memory at a time
        page = [f'<p><a href="{esc(os.path.basename(index))}">all models</a></p>',
                *_model_page_body(group, facts, fail_on, hops, _Ids(), _filters(group))]
        files[os.path.join(folder, names[model])] = _page(f"atccheck: {model}", page)
    return files


# --------------------------------------------------------------------------- fix


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def _changed_nodes(before: GraphView, after: GraphView, labels: Sequence[str]) -> list[str]:
    """Nodes of the rewritten graph that stand where these nodes of the original stood.

    A node still there keeps its name; otherwise the new nodes (names absent from the
    original) between the tensors the old node read and wrote.
    """
    old = set(before.by_label)
    found: list[str] = []
    for label in labels:
        if after.find(label):
            found.append(label)
            continue
        for i in before.find(label):
            stop = set(before.reads[i])
            todo = [after.producer[t] for t in before.writes[i] if t in after.producer]
            seen: set[int] = set()
            while todo and len(seen) < 24:
                n = todo.pop()
                if n in seen or after.labels[n] in old:
                    continue
                seen.add(n)
                todo.extend(after.producer[t] for t in after.reads[n] if t in after.producer and t not in stop)
            found.extend(after.labels[n] for n in sorted(seen))
    return list(dict.fromkeys(found))


def _anchors(findings: Sequence[Finding], record: Any) -> list[str]:
    """The nodes a pass was run for: its findings' nodes (by its name, or by the rules it removed)."""
    names = set(record.removed)
    anchors = [f for f in findings
               if f.location.node and f.location.graph == ROOT_GRAPH
               and (f.fix.pass_name == record.name or f.name in names)]
    return list(dict.fromkeys(f.location.node for f in anchors if f.location.node))[:PICTURED_NODES]


class FixSteps:
    """The graph before and after each applied step, taken while fix runs (``fix(on_step=...)``),
    so each pass is drawn against the model it changed rather than the input and the written
    model. Only the graph views are kept, never a model."""

    def __init__(self) -> None:
        self._steps: dict[int, tuple[Any, ModelFacts, ModelFacts, list[str]]] = {}

    def __call__(self, record: Any, before: Report, after: Report) -> None:
        # the record is held too, so its id cannot be reused by a later one while this lives
        self._steps[id(record)] = (record, FactsCache._build(before), FactsCache._build(after),
                                   _anchors(before.findings, record))

    def get(self, record: Any) -> tuple[ModelFacts, ModelFacts, list[str]] | None:
        found = self._steps.get(id(record))
        return found[1:] if found is not None and found[0] is record else None


def _pass_pictures(outcome: "FixOutcome", record: Any, before: ModelFacts, after: ModelFacts, hops: int,
                   steps: FixSteps | None = None) -> str:
    step = steps.get(record) if steps is not None else None
    if step is not None:
        before, after, labels = step
        after_caption, gone = "after this pass", "after: the nodes are gone from the model after this pass."
    else:
        labels = _anchors(outcome.before.findings, record)
        after_caption, gone = "after (the written model)", "after: the nodes are gone from the written model."
    old_view, new_view = before.views.get(ROOT_GRAPH), after.views.get(ROOT_GRAPH)
    if not labels or old_view is None or new_view is None:
        return '<p class="muted">No node-level change to draw (the pass works on the whole model).</p>'
    old_pic = picture_for(old_view, labels, hops)
    new_labels = _changed_nodes(old_view, new_view, labels)
    new_pic = picture_for(new_view, new_labels, hops) if new_labels else None
    left = (f"<figure>{render_svg(old_pic, 'before')}<figcaption>before: {esc(', '.join(labels))}</figcaption></figure>"
            if old_pic else "")
    right = (f'<figure class="after">{render_svg(new_pic, "after")}<figcaption>{after_caption}: '
             f'{esc(", ".join(new_labels[:8]))}{" ..." if len(new_labels) > 8 else ""}</figcaption></figure>'
             if new_pic else f'<figure class="after"><p class="muted">{gone}</p></figure>')
    return f'<div class="pair">{left}{right}</div>'


def render_fix(outcome: "FixOutcome", *, hops: int = HOPS, steps: FixSteps | None = None) -> str:
    """The report of one ``atccheck fix`` run: passes with before/after pictures, verification, what remains.

    With ``steps`` (collected by ``fix(on_step=steps)``) each pass is drawn before and after
    itself; without, against the input and the written model."""
    from atccheck.fixing.outcome import TESTED, PassStatus

    ids = _Ids()
    before = FactsCache._build(outcome.before)
    after = FactsCache._build(outcome.after)
    b, a = outcome.before.counts(), outcome.after.counts()
    v = outcome.verification
    body = [f"<header><h1>atccheck fix: <code>{esc(outcome.source)}</code></h1>",
            f'<p class="sub">{esc(outcome.target.describe())}; written to '
            f'<code>{esc(outcome.output) if outcome.output else "(not written)"}</code></p>',
            "<table><tr><th></th><th>errors</th><th>warnings</th><th>info</th><th>nodes</th></tr>",
            f"<tr><th>before</th><td class='n'>{b['error']}</td><td class='n'>{b['warning']}</td>"
            f"<td class='n'>{b['info']}</td><td class='n'>{outcome.before.node_count}</td></tr>",
            f"<tr><th>after</th><td class='n'>{a['error']}</td><td class='n'>{a['warning']}</td>"
            f"<td class='n'>{a['info']}</td><td class='n'>{outcome.after.node_count}</td></tr></table>"]
    verdict = "errors remain" if outcome.fails() else "no error remains"
    body.append(f'<p class="verdict {"fails" if outcome.fails() else "passes"}">{verdict}</p>')
    text = f"verification: {v.status}"
    if v.max_abs_error is not None:
        text += f" (max abs error against the original {_num(v.max_abs_error)}, rel {_num(v.max_rel_error)})"
    if v.reason:
        text += f": {v.reason}"
    body.append(f"<p>{esc(text)}</p>")
    if v.inputs:
        body.append("<ul class='muted'>" + "".join(f"<li>inputs: {esc(i)}</li>" for i in v.inputs) + "</ul>")
    if outcome.atc_command is not None:
        body.append("<h3>atc command for the written model</h3>" + _command_block(outcome.atc_command, ids))
    elif outcome.atc_command_error:
        body.append(f"<p class='muted'>No atc command: {esc(outcome.atc_command_error)}</p>")
    body.append("</header>")

    shown = [p for p in outcome.passes if not (p.status is PassStatus.SKIPPED and p.reason == "no finding calls for it")]
    rows = []
    for p in shown:
        numbers = ""
        if p.verification == TESTED or p.max_abs_error is not None:
            numbers = f"max abs {_num(p.max_abs_error)}, rel {_num(p.max_rel_error)}"
            if p.tolerance is not None:
                numbers += f" (tolerance {p.tolerance:g} + {p.rtol or 0:g}*|x|)"
        nodes = f"{p.nodes_before} &rarr; {p.nodes_after}" if p.nodes_after is not None else ""
        delta = ", ".join(f"-{n} {k}" for k, n in sorted(p.removed.items()))
        delta += (", " if delta and p.added else "") + ", ".join(f"+{n} {k}" for k, n in sorted(p.added.items()))
        rows.append(f"<tr><td><code>{esc(p.name)}</code></td><td>{esc(p.status.value)}</td><td>{nodes}</td>"
                    f"<td>{esc(p.verification or '')}</td><td>{esc(numbers)}</td><td>{esc(delta)}</td>"
                    f"<td>{esc(p.reason or '')}</td></tr>")
    body.append("<h2>Passes</h2><table><tr><th>pass</th><th>status</th><th>nodes</th><th>verified</th>"
                "<th>numbers</th><th>findings</th><th>reason</th></tr>" + "".join(rows) + "</table>")
    for p in outcome.applied:
        notes = "".join(f"<li>{esc(n)}</li>" for n in p.notes[:12])
        more = f"<li>... {len(p.notes) - 12} more</li>" if len(p.notes) > 12 else ""
        body.append(f'<section class="pass"><h3>{esc(p.name)}'
                    f'{f" (round {p.round})" if p.round and p.round > 1 else ""}</h3>'
                    + (f"<ul>{notes}{more}</ul>" if notes else "")
                    + _pass_pictures(outcome, p, before, after, hops, steps) + "</section>")
    if outcome.warnings:
        body.append("<h2>Warnings</h2><ul>" + "".join(f"<li>{esc(w)}</li>" for w in outcome.warnings) + "</ul>")
    body.append(_filters([outcome.after]))
    body.append(f'<section class="target"><h2>Remaining findings ({len(outcome.remaining)})</h2>')
    whys: dict[tuple, str] = {}
    for item in outcome.remaining:
        f = item.finding
        whys.setdefault((f.severity, f.code, f.name, f.message, f.hint), item.why)
    for group in message_groups(outcome.after.findings):
        f = group[0]
        why = whys.get((f.severity, f.code, f.name, f.message, f.hint))
        body.append(finding_section(group, after, hops, f"<dt>why it remains</dt><dd>{esc(why)}</dd>" if why else ""))
    if not outcome.remaining:
        body.append('<p class="passes">None.</p>')
    body.append("</section>")
    return _page(f"atccheck fix: {outcome.source}", body)
