"""Pictures of a node's neighbourhood: which nodes, where they go, and the SVG that draws them.

Three steps, each usable alone:

1. :class:`GraphView`: one graph of a model (the root graph or a subgraph) as plain data, node
   labels, op types, the tensors each node reads and writes, and a short shape/dtype label
   per tensor. Built once per model from the context the rules ran in; holds no weights.
2. :func:`neighbourhood`: the nodes within ``hops`` producers and consumers of the highlighted
   nodes, with a "+N more" box wherever a node has more new neighbours in one direction
   than ``fanout``; graph inputs and outputs next to them appear as terminals.
3. :func:`layout` and :func:`render_svg`: nodes put in layers top-down by their longest path
   from a source of the picture (networkx topological order), ordered within a layer by the
   mean position of their neighbours, edges labelled with the tensor's shape and dtype.

Everything a user controls (node, tensor and op names) is escaped on the way out.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.model.graph import GraphIndex
    from atccheck.model.shapes import ShapeIndex

HOPS = 2
FANOUT = 4  # more new neighbours than this in one direction: FANOUT - 1 are drawn, the rest counted
MAX_LABEL = 26  # characters of a name shown in a box (the full name is in its tooltip)
MAX_EDGE_LABEL = 40  # characters of a shape and dtype shown on an edge

# Geometry, in SVG user units (pixels at 100 %).
NODE_H = 38
TERM_H = 24
GAP_X = 22
GAP_Y = 52
MARGIN = 10
CHAR_OP = 7.4
CHAR_NAME = 6.2
CHAR_EDGE = 6.0


# --------------------------------------------------------------------------- the graph as data


@dataclass
class GraphView:
    """One graph's structure and tensor labels; node ``i`` is the graph's ``i``-th node."""

    labels: list[str]
    ops: list[str]
    reads: list[tuple[str, ...]]
    writes: list[tuple[str, ...]]
    tensor_labels: dict[str, str]
    constants: frozenset[str] = frozenset()  # initializers: not drawn
    outputs: frozenset[str] = frozenset()  # graph outputs: drawn as terminals
    producer: dict[str, int] = field(default_factory=dict)
    consumers: dict[str, list[int]] = field(default_factory=dict)
    by_label: dict[str, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for i, (label, reads, writes) in enumerate(zip(self.labels, self.reads, self.writes)):
            self.by_label.setdefault(label, []).append(i)
            for t in writes:
                self.producer[t] = i
            for t in dict.fromkeys(reads):
                self.consumers.setdefault(t, []).append(i)

    def __len__(self) -> int:
        return len(self.labels)

    def find(self, label: str) -> list[int]:
        return self.by_label.get(label, [])

    def preds(self, i: int) -> list[int]:
        out = [self.producer[t] for t in self.reads[i] if t in self.producer]
        return list(dict.fromkeys(p for p in out if p != i))

    def succs(self, i: int) -> list[int]:
        out = [c for t in self.writes[i] for c in self.consumers.get(t, ())]
        return list(dict.fromkeys(c for c in out if c != i))

    def is_input(self, tensor: str) -> bool:
        """Read in this graph but made nowhere in it and not a constant: a graph (or outer) input."""
        return tensor not in self.producer and tensor not in self.constants

    def tensor_label(self, tensor: str) -> str:
        return self.tensor_labels.get(tensor, "")


def tensor_text(shape: Sequence[object] | None, dtype: str | None) -> str:
    """``1×3×224×224 float32``, ``batch×128 int64``, ``? float16`` (rank unknown)."""
    dims = "?" if shape is None else ("scalar" if len(shape) == 0 else "\u00d7".join("?" if d is None else str(d) for d in shape))
    return f"{dims} {dtype}" if dtype else dims


def graph_views(index: "GraphIndex", shapes: "ShapeIndex") -> dict[str, GraphView]:
    """A :class:`GraphView` per graph path (``main``, ``main/If_0:then_branch``, ...)."""
    from atccheck.findings import ROOT_GRAPH

    grouped: dict[str, list] = {}
    for gnode in index.nodes:
        grouped.setdefault(gnode.graph, []).append(gnode)
    constants = frozenset(index.initializers)
    outputs = frozenset(o.name for o in index.model.graph.output)
    labels: dict[str, str] = {}

    def label(name: str) -> str:
        found = labels.get(name)
        if found is None:
            info = shapes.get(name)
            found = labels[name] = tensor_text(info.shape, info.dtype_name) if info is not None else ""
        return found

    views = {}
    for path, gnodes in grouped.items():
        reads = [tuple(index.reads(g.node)) for g in gnodes]  # an If or Loop also reads what its branches use
        writes = [tuple(t for t in g.node.output if t) for g in gnodes]
        names = {t for ts in reads for t in ts} | {t for ts in writes for t in ts}
        views[path] = GraphView(
            labels=[g.label for g in gnodes],
            ops=[g.op_type for g in gnodes],
            reads=reads,
            writes=writes,
            tensor_labels={t: label(t) for t in names},
            constants=constants,
            outputs=outputs if path == ROOT_GRAPH else frozenset(),
        )
    return views


# --------------------------------------------------------------------------- which nodes


@dataclass(frozen=True)
class Box:
    """A box in the picture: a node, a graph input/output terminal, or a "+N more" box."""

    id: str
    kind: str  # node | input | output | more
    title: str  # the first line: op type, tensor name, or "+N more"
    name: str = ""  # the second line: node label
    highlight: bool = False
    order: float = 0.0  # position hint within a layer (the node's index in its graph)


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str
    label: str = ""


@dataclass
class Picture:
    boxes: dict[str, Box]
    edges: list[Edge]

    @property
    def highlighted(self) -> list[Box]:
        return [b for b in self.boxes.values() if b.highlight]


def neighbourhood(view: GraphView, centers: Iterable[int], hops: int = HOPS, fanout: int = FANOUT) -> Picture:
    """The centers, ``hops`` levels of producers and of consumers, "+N more" for wide fan-out."""
    centers = list(dict.fromkeys(centers))
    dist: dict[int, int] = {c: 0 for c in centers}
    more: list[tuple[int, str, int]] = []
    fanout = max(fanout, 2)
    for direction in ("up", "down"):
        frontier = list(centers)
        for hop in range(1, hops + 1):
            nxt = []
            for n in frontier:
                around = view.preds(n) if direction == "up" else view.succs(n)
                new = [m for m in around if m not in dist]
                shown = new if len(new) <= fanout else new[: fanout - 1]
                for m in shown:
                    dist[m] = hop
                nxt.extend(shown)
                if len(new) > len(shown):
                    more.append((n, direction, len(new) - len(shown)))
            frontier = nxt
    highlighted = set(centers)
    boxes: dict[str, Box] = {}
    for n in sorted(dist):
        boxes[f"n{n}"] = Box(f"n{n}", "node", view.ops[n], view.labels[n], n in highlighted, float(n))
    edges: dict[tuple[str, str], list[str]] = {}

    def connect(src: str, dst: str, label: str) -> None:
        labels = edges.setdefault((src, dst), [])
        if label and label not in labels:
            labels.append(label)

    for n in sorted(dist):
        near = dist[n] < hops
        for t in view.reads[n]:
            p = view.producer.get(t)
            if p is not None and p in dist and p != n:
                connect(f"n{p}", f"n{n}", view.tensor_label(t))
            elif near and view.is_input(t):
                tid = f"i:{t}"
                if tid not in boxes:
                    boxes[tid] = Box(tid, "input", t, "", False, n - 0.5)
                connect(tid, f"n{n}", view.tensor_label(t))
        if near:
            for t in view.writes[n]:
                if t in view.outputs:
                    tid = f"o:{t}"
                    boxes[tid] = Box(tid, "output", t, "", False, n + 0.5)
                    connect(f"n{n}", tid, view.tensor_label(t))
    for k, (n, direction, count) in enumerate(more):
        mid = f"m{k}"
        boxes[mid] = Box(mid, "more", f"+{count} more", "producers" if direction == "up" else "consumers", False,
                         n + (-0.25 if direction == "up" else 0.25))
        if direction == "up":
            connect(mid, f"n{n}", "")
        else:
            connect(f"n{n}", mid, "")
    return Picture(boxes, [Edge(s, d, "; ".join(ls)) for (s, d), ls in edges.items()])


# --------------------------------------------------------------------------- where they go


@dataclass(frozen=True)
class Placed:
    x: float
    y: float
    w: float
    h: float


def _short(text: str, limit: int = MAX_LABEL) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _tail(text: str, limit: int = MAX_LABEL) -> str:
    """The end of a long name: exported names share long prefixes (``/encoder/layer.3/...``)."""
    return text if len(text) <= limit else "\u2026" + text[-(limit - 1):]


def box_size(box: Box) -> tuple[float, float]:
    if box.kind in ("input", "output"):
        return max(56.0, len(_tail(box.title)) * CHAR_NAME + 20), float(TERM_H)
    width = max(len(_short(box.title)) * CHAR_OP, len(_tail(box.name)) * CHAR_NAME) + 18
    return max(64.0, width), float(NODE_H)


def _layers(picture: Picture) -> dict[str, int]:
    """Longest path from a source of the picture: a node sits below everything it reads."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(picture.boxes)
    graph.add_edges_from((e.src, e.dst) for e in picture.edges if e.src != e.dst)
    layer: dict[str, int] = {}
    try:
        order = list(nx.topological_sort(graph))
    except nx.NetworkXUnfeasible:  # a cycle (an invalid model): the model's own order
        order = sorted(picture.boxes, key=lambda b: picture.boxes[b].order)
        graph = nx.DiGraph([(u, v) for u, v in graph.edges if picture.boxes[u].order < picture.boxes[v].order])
        graph.add_nodes_from(picture.boxes)
    for b in order:
        layer[b] = max((layer[p] + 1 for p in graph.predecessors(b) if p in layer), default=0)
    # an input terminal sits right above its first reader, not at the top of the picture
    for b, box in picture.boxes.items():
        if box.kind == "input":
            readers = [layer[s] for s in graph.successors(b)]
            if readers:
                layer[b] = min(readers) - 1
    return layer


def layout(picture: Picture) -> tuple[dict[str, Placed], float, float]:
    """Positions of every box, and the picture's width and height."""
    layer = _layers(picture)
    rows: dict[int, list[str]] = {}
    for b in sorted(picture.boxes, key=lambda b: picture.boxes[b].order):
        rows.setdefault(layer[b], []).append(b)
    levels = sorted(rows)
    ups: dict[str, list[str]] = {b: [] for b in picture.boxes}
    downs: dict[str, list[str]] = {b: [] for b in picture.boxes}
    for e in picture.edges:
        downs[e.src].append(e.dst)
        ups[e.dst].append(e.src)
    # order within a layer: two sweeps of the mean position of the neighbours already placed
    position = {b: float(i) for level in levels for i, b in enumerate(rows[level])}
    for neighbours, sweep in ((ups, levels[1:]), (downs, levels[-2::-1]), (ups, levels[1:])):
        for level in sweep:
            row = rows[level]

            def mean(b: str) -> float:
                # called by the sort just below, in this same iteration
                near = [position[n] for n in neighbours[b] if n in position]  # noqa: B023
                return sum(near) / len(near) if near else position[b]

            row.sort(key=lambda b: (mean(b), picture.boxes[b].order))
            for i, b in enumerate(row):
                position[b] = float(i)
    sizes = {b: box_size(box) for b, box in picture.boxes.items()}
    widths = {level: sum(sizes[b][0] for b in row) + GAP_X * (len(row) - 1) for level, row in rows.items()}
    total_w = max(widths.values(), default=0.0) + 2 * MARGIN
    placed: dict[str, Placed] = {}
    y = float(MARGIN)
    for level in levels:
        x = MARGIN + (total_w - 2 * MARGIN - widths[level]) / 2
        row_h = max(sizes[b][1] for b in rows[level])
        for b in rows[level]:
            w, h = sizes[b]
            placed[b] = Placed(x, y + (row_h - h) / 2, w, h)
            x += w + GAP_X
        y += row_h + GAP_Y
    total_h = y - GAP_Y + MARGIN
    return placed, total_w, total_h


# --------------------------------------------------------------------------- drawing


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _n(value: float) -> str:
    return str(int(round(value)))


# One definition of the arrow head for every picture in a document (ids are document-wide).
ARROW_DEFS = (
    '<svg class="defs" width="0" height="0" aria-hidden="true"><defs><marker id="ah" viewBox="0 0 8 8" refX="7" '
    'refY="4" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L8,4L0,8z" fill="#667"/></marker>'
    "</defs></svg>"
)


def render_svg(picture: Picture, caption: str = "") -> str:
    """An inline ``<svg>`` (needs :data:`ARROW_DEFS` once in the document for arrow heads).

    Each box is a ``<g>`` with ``data-node`` (the node label or tensor name) and the class
    ``hl`` when highlighted, so tests and scripts can find them.
    """
    placed, width, height = layout(picture)
    out: list[str] = []
    labels = []
    # a tensor read by several boxes is labelled once, under its source; the same shape coming
    # into one box from several sources once, above it; any other label half-way along its edge
    per_source = Counter((e.src, e.label) for e in picture.edges if e.label)
    per_target = Counter((e.dst, e.label) for e in picture.edges if e.label)
    labelled: set[tuple[str, str]] = set()
    taken: list[tuple[float, float, float, float]] = []
    for e in picture.edges:
        a, b = placed[e.src], placed[e.dst]
        x1, y1 = a.x + a.w / 2, a.y + a.h
        x2, y2 = b.x + b.w / 2, b.y
        if y2 <= y1:  # drawn upwards (a cycle or a same-layer edge): straight line
            out.append(f'<path class="e" d="M{_n(x1)} {_n(y1)}L{_n(x2)} {_n(y2)}"/>')
            continue
        ym = (y1 + y2) / 2
        out.append(f'<path class="e" d="M{_n(x1)} {_n(y1)}C{_n(x1)} {_n(ym)} {_n(x2)} {_n(ym)} {_n(x2)} {_n(y2)}"/>')
        if not e.label:
            continue
        # one label per tensor fanned out from a source, and per shape joined into a target
        if per_source[(e.src, e.label)] > 1:
            key = ("src:" + e.src, e.label)
        elif per_target[(e.dst, e.label)] > 1:
            key = ("dst:" + e.dst, e.label)
        else:
            key = ("edge:" + e.src + "\0" + e.dst, e.label)
        if key in labelled:
            continue
        labelled.add(key)
        text = _short(e.label, MAX_EDGE_LABEL)
        wide = len(text) * CHAR_EDGE
        if key[0].startswith("src:"):
            cls, left, x, y = "el", x1 + 5, x1 + 5, y1 + 12
        elif key[0].startswith("dst:"):
            cls, left, x, y = "el", x2 + 5, x2 + 5, y2 - 5
        elif abs(x2 - x1) < 24:  # a (nearly) straight drop: beside the line
            cls, left, x, y = "el", (x1 + x2) / 2 + 5, (x1 + x2) / 2 + 5, ym + 3
        else:
            cls, left, x, y = "el m", (x1 + x2) / 2 - wide / 2, (x1 + x2) / 2, ym + 3
        # the first of a few heights where the label overlaps no label already placed
        for dy in (0, 11, -11, 22):
            area = (left - 3, y + dy - 9, left + wide + 3, y + dy + 2)
            if not any(area[0] < o[2] and o[0] < area[2] and area[1] < o[3] and o[1] < area[3] for o in taken):
                taken.append(area)
                labels.append(f'<text class="{cls}" x="{_n(x)}" y="{_n(y + dy)}">{_esc(text)}</text>')
                break
    out.extend(labels)
    for box_id, box in picture.boxes.items():
        p = placed[box_id]
        cls = box.kind + (" hl" if box.highlight else "")
        node_key = box.name if box.kind == "node" else box.title
        tip = f"{box.title} {box.name}".strip() if box.kind == "node" else box.title
        cx = p.x + p.w / 2
        rx = p.h / 2 if box.kind in ("input", "output") else 5
        out.append(f'<g class="{cls}" data-node="{_esc(node_key)}"><title>{_esc(tip)}</title>'
                   f'<rect x="{_n(p.x)}" y="{_n(p.y)}" width="{_n(p.w)}" height="{_n(p.h)}" rx="{rx}"/>')
        if box.kind in ("input", "output"):
            out.append(f'<text x="{_n(cx)}" y="{_n(p.y + 16)}">{_esc(_tail(box.title))}</text></g>')
        else:
            out.append(f'<text class="op" x="{_n(cx)}" y="{_n(p.y + 16)}">{_esc(_short(box.title))}</text>'
                       f'<text x="{_n(cx)}" y="{_n(p.y + 31)}">{_esc(_tail(box.name))}</text></g>')
    out.append("</svg>")
    # labels may reach past the boxes: the view box grows to hold them
    x0 = min([0.0, *(b[0] for b in taken)])
    x1 = max([width, *(b[2] for b in taken)])
    head = (f'<svg class="nb" xmlns="http://www.w3.org/2000/svg" width="{_n(x1 - x0)}" height="{_n(height)}" '
            f'viewBox="{_n(x0)} 0 {_n(x1 - x0)} {_n(height)}" role="img" aria-label="{_esc(caption)}">')
    return head + "".join(out)


def picture_for(view: GraphView, labels: Iterable[str], hops: int = HOPS, fanout: int = FANOUT) -> Picture | None:
    """The neighbourhood of the nodes with these labels, or None when none is in the view."""
    centers = [i for label in labels for i in view.find(label)]
    if not centers:
        return None
    return neighbourhood(view, centers, hops, fanout)


def picture_for_input(view: GraphView, tensor: str, hops: int = HOPS, fanout: int = FANOUT) -> Picture | None:
    """A graph input highlighted, with ``hops`` levels of the nodes reading it; None when
    nothing in the view reads it."""
    readers = view.consumers.get(tensor, [])
    if not readers or not view.is_input(tensor):
        return None
    picture = neighbourhood(view, readers[: fanout], max(hops - 1, 1), fanout)
    key = f"i:{tensor}"
    boxes = {}
    for b, box in picture.boxes.items():
        boxes[b] = Box(box.id, box.kind, box.title, box.name, b == key, box.order)
    return Picture(boxes, picture.edges) if key in boxes else None

