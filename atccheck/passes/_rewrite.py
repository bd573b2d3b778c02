"""Bookkeeping shared by the rewrite passes: walk graphs, name values, emit ops right for the opset.

A rewrite pass decides, node by node, whether and how to replace it; this module does the rest:

- :class:`Rewriter` walks every graph of the model bottom-up (subgraphs before the graph that
  holds them), asks the pass for each node, and splices the replacement in place of the node,
  so the graph stays topologically sorted. It knows the model opset, the inferred shapes of
  the model as it was handed over, the target profile's registry, and which nodes a finding
  asked this pass to fix.
- :class:`Emitter` builds one node's replacement: fresh unique names, constants as
  initializers of the node's own graph, and ops written the way the model's opset wants them
  (``ReduceMean`` axes as attribute below opset 18 and as input from 18, ``Clip`` bounds as
  inputs from 11, ``Slice``/``Squeeze``/``Unsqueeze`` forms). Nothing reaches the model unless
  the pass returns the emitter, so a refusal half way leaves the node untouched.

A pass returns from its per-node function an :class:`Emitter` (replace the node), a string
(leave it and say why: the note goes to the report), or None (not a node for this pass).

Graph helpers that need none of this (fresh names, nested graphs, opsets, initializers) are in
:mod:`atccheck.passes._graph`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from atccheck.domains import CONTRIB_DOMAIN, STANDARD_DOMAINS
from atccheck.findings import ROOT_GRAPH
from atccheck.passes._graph import (
    Names,
    elem_name,
    is_float,
    iter_graphs,
    nested_graphs,
    np_dtype,
    opset_of,
    prune_initializers,
    shapes_of,
)
from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, left

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

    from atccheck.findings import Finding
    from atccheck.model.graph import GraphIndex
    from atccheck.model.shapes import ShapeIndex, TensorInfo


# Opset at which an op's list-valued attribute became an input.
AXES_AS_INPUT = {
    "ReduceSum": 13,
    "ReduceMean": 18,
    "ReduceMax": 18,
    "ReduceMin": 18,
    "ReduceProd": 18,
    "Squeeze": 13,
    "Unsqueeze": 13,
}
CLIP_BOUNDS_AS_INPUTS = 11
SLICE_ARGS_AS_INPUTS = 10
PAD_ARGS_AS_INPUTS = 11


class Unsupported(Exception):
    """Raised inside a rewrite to leave the node untouched; the message becomes the note."""


@dataclass
class Site:
    """A node where it sits: its graph, the graph's path as findings spell it, its index."""

    graph: "onnx.GraphProto"
    path: str
    index: int
    node: "onnx.NodeProto"

    @property
    def label(self) -> str:
        """The node's name, or ``<OpType>_<n>`` as findings name an unnamed node."""
        return self.node.name or f"{self.node.op_type}_{self.index}"

    def attr(self, name: str, default: Any = None) -> Any:
        import onnx

        for attr in self.node.attribute:
            if attr.name == name:
                value = onnx.helper.get_attribute_value(attr)
                return value.decode("utf-8") if isinstance(value, bytes) else value
        return default

    def input(self, index: int) -> str:
        return self.node.input[index] if index < len(self.node.input) else ""

    def attrs(self, drop: Iterable[str] = ()) -> dict[str, Any]:
        """Every attribute the node sets, by name (strings decoded), except those in ``drop``."""
        skip = set(drop)
        return {a.name: self.attr(a.name) for a in self.node.attribute if a.name not in skip}

    def output(self, index: int) -> str:
        return self.node.output[index] if index < len(self.node.output) else ""


class Emitter:
    """The replacement of one node: new nodes and constants, committed together or not at all."""

    def __init__(self, rewriter: "Rewriter", site: Site) -> None:
        self.rw = rewriter
        self.site = site
        self.nodes: list["onnx.NodeProto"] = []
        self.initializers: list["onnx.TensorProto"] = []
        self.prefix = site.label

    @property
    def opset(self) -> int:
        return self.rw.opset

    def name(self, hint: str) -> str:
        return self.rw.fresh(f"{self.prefix}/{hint}")

    # ---- constants

    def const(self, value: Any, hint: str = "const", dtype: Any = None) -> str:
        """A constant (initializer of the node's graph) holding ``value``."""
        import numpy as np
        from onnx import numpy_helper

        array = np.asarray(value, dtype=dtype)
        if array.dtype == np.dtype(object) and not all(isinstance(v, (str, bytes)) for v in array.flat):
            # a number asked for in a tensor of text (the node's tensors are STRING): onnx cannot store it
            raise Unsupported(f"a constant of text (STRING) cannot hold the number the rewrite needs ('{hint}')")
        name = self.name(hint)
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def scalar(self, value: float, elem_type: int, hint: str = "c") -> str:
        """A scalar constant of the given ONNX element type."""
        return self.const(value, hint, dtype=np_dtype(elem_type))

    def tensor(self, proto: "onnx.TensorProto", hint: str = "const") -> str:
        """A copy of an existing tensor (any type, data as it is) under a fresh name."""
        import onnx

        copy = onnx.TensorProto()
        copy.CopyFrom(proto)
        copy.name = self.name(hint)
        self.initializers.append(copy)
        return copy.name

    def ints(self, values: Iterable[int], hint: str = "ints") -> str:
        import numpy as np

        return self.const(np.array(list(values), dtype=np.int64), hint)

    # ---- nodes

    def op(
        self,
        op_type: str,
        inputs: Sequence[str],
        outputs: str | Sequence[str] | int | None = None,
        domain: str = "",
        **attrs: Any,
    ) -> Any:
        """Append a node; returns its output name (one output) or list of names."""
        from onnx import helper

        if outputs is None:
            names = [self.name(op_type.lower())]
        elif isinstance(outputs, int):
            names = [self.name(f"{op_type.lower()}{k}") for k in range(outputs)]
        elif isinstance(outputs, str):
            names = [outputs]
        else:
            names = list(outputs)
        attrs = {k: v for k, v in attrs.items() if v is not None}
        node_name = self.rw.fresh(f"{self.prefix}/{op_type}")
        self.nodes.append(helper.make_node(op_type, list(inputs), names, name=node_name, domain=domain, **attrs))
        return names[0] if len(names) == 1 else names

    def reduce(self, op_type: str, x: str, axes: Sequence[int], keepdims: int = 1, out: str | None = None) -> str:
        """ReduceMean/ReduceSum/... with axes as attribute or input, whichever the opset wants."""
        if self.opset >= AXES_AS_INPUT[op_type]:
            return self.op(op_type, [x, self.ints(axes, "axes")], out, keepdims=keepdims)
        return self.op(op_type, [x], out, axes=list(axes), keepdims=keepdims)

    def unsqueeze(self, x: str, axes: Sequence[int], out: str | None = None) -> str:
        if self.opset >= AXES_AS_INPUT["Unsqueeze"]:
            return self.op("Unsqueeze", [x, self.ints(axes, "axes")], out)
        return self.op("Unsqueeze", [x], out, axes=list(axes))

    def clip(self, x: str, low: float, high: float, elem_type: int, out: str | None = None) -> str:
        """Clip with bounds as attributes (opset < 11) or as scalar inputs of x's type."""
        if self.opset >= CLIP_BOUNDS_AS_INPUTS:
            return self.op("Clip", [x, self.scalar(low, elem_type, "min"), self.scalar(high, elem_type, "max")], out)
        return self.op("Clip", [x], out, min=float(low), max=float(high))

    def slice(self, x: str, starts: Sequence[int], ends: Sequence[int], axes: Sequence[int], out: str | None = None) -> str:
        if self.opset >= SLICE_ARGS_AS_INPUTS:
            args = [self.ints(starts, "starts"), self.ints(ends, "ends"), self.ints(axes, "axes")]
            return self.op("Slice", [x, *args], out)
        return self.op("Slice", [x], out, starts=list(starts), ends=list(ends), axes=list(axes))

    def pad(self, x: str, pads: Sequence[int], out: str | None = None) -> str:
        """Zero padding, ``pads`` = [begin of every axis..., end of every axis...]."""
        if self.opset >= PAD_ARGS_AS_INPUTS:
            return self.op("Pad", [x, self.ints(pads, "pads")], out)
        return self.op("Pad", [x], out, pads=list(pads), mode="constant")

    def reshape(self, x: str, shape: Sequence[int], out: str | None = None) -> str:
        return self.op("Reshape", [x, self.ints(shape, "shape")], out)

    def transpose(self, x: str, perm: Sequence[int], out: str | None = None) -> str:
        if list(perm) == list(range(len(perm))) and out is None:
            return x
        return self.op("Transpose", [x], out, perm=list(perm))

    def cast(self, x: str, to: int, out: str | None = None) -> str:
        return self.op("Cast", [x], out, to=to)

    def finish(self, value: str, out: str) -> None:
        """Make ``out`` carry ``value``: rename the last node's output, or add an Identity."""
        last = self.nodes[-1] if self.nodes else None
        if last is not None and list(last.output) == [value]:
            last.output[0] = out
        else:
            self.op("Identity", [value], out)


class Rewriter:
    """Runs one pass's per-node rewrite over every graph of a model and records what happened."""

    def __init__(self, model: "onnx.ModelProto", ctx: PassContext, pass_name: str) -> None:
        self.model = model
        self.ctx = ctx
        self.pass_name = pass_name
        self.names = Names(model)
        self.notes: list[str] = []
        self.rewritten: list[str] = []
        self._shapes: "ShapeIndex | None" = None
        self._graph_index: "GraphIndex | None" = None
        self.asked: dict[tuple[str, str | None], list[Finding]] = {}
        for f in ctx.findings:
            if f.fix.pass_name == pass_name:
                self.asked.setdefault((f.location.graph, f.location.node), []).append(f)
        self.requested = set(self.asked)

    # ---- facts about the model and the target

    def opset_of(self, domain: str = "") -> int | None:
        return opset_of(self.model, domain)

    @property
    def opset(self) -> int:
        return self.opset_of("") or 1

    @property
    def shapes(self) -> "ShapeIndex":
        """Shapes and types of the model as handed to the pass (the user's input shapes applied)."""
        if self._shapes is None:
            self._shapes = shapes_of(self.model, self.ctx)
        return self._shapes

    def info(self, name: str) -> "TensorInfo | None":
        return self.shapes.get(name) if name else None

    def elem_type(self, name: str) -> int | None:
        info = self.info(name)
        return info.elem_type if info is not None and info.elem_type else None

    def float_type(self, name: str) -> int:
        """The element type of a float tensor, or Unsupported when unknown or not float."""
        elem = self.elem_type(name)
        if elem is None:
            raise Unsupported(f"the element type of '{name}' is unknown")
        if not is_float(elem):
            raise Unsupported(f"'{name}' is {elem_name(elem)}, not a float16/float32/float64 tensor")
        return elem

    def rank(self, name: str) -> int | None:
        info = self.info(name)
        return info.rank if info is not None else None

    def static_shape(self, name: str) -> tuple[int, ...] | None:
        info = self.info(name)
        if info is None or not info.is_static:
            return None
        assert info.shape is not None  # is_static: a known shape of int dims only
        return tuple(int(d) for d in info.shape if isinstance(d, int))

    def spatial_sizes(self, name: str, rank: int) -> list:
        """The sizes after N and C of an [N, C, ...] value of ``rank`` spatial axes: an int, a
        symbol or None each; all None when the value's shape is unknown or of another rank."""
        info = self.info(name)
        if info is None or info.shape is None or len(info.shape) != rank + 2:
            return [None] * rank
        return list(info.shape[2:])

    def const_value(self, name: str, limit: int | None = None) -> "np.ndarray | None":
        """The value of a constant (initializer anywhere, or Constant output); None otherwise.

        ``limit`` None reads small constants only (what rules read); pass a number of elements
        to read weights (``fix`` has loaded them; external data that was not loaded gives None).
        """
        import onnx
        from onnx import numpy_helper

        if not name:
            return None
        if self._graph_index is None:
            from atccheck.model.graph import GraphIndex

            self._graph_index = GraphIndex(self.model)
        index = self._graph_index
        tensor = index.initializers.get(name)
        producer = index.producer.get(name)
        if tensor is None and producer is not None and producer.op_type == "Constant" and limit is not None:
            tensor = next((a.t for a in producer.node.attribute if a.name == "value"), None)
        if tensor is None or limit is None:
            return index.const_value(name)
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            return None
        count = 1
        for d in tensor.dims:
            count *= int(d)
        if count > limit:
            return None
        try:
            return numpy_helper.to_array(tensor)
        except Exception:  # malformed payload: treat as not constant
            return None

    def registered(self, op_type: str, domain: str = "") -> bool:
        """Whether the target profile's parser registers this op at the model's opset."""
        from atccheck.tables import tables

        reg = tables().registry(self.ctx.target.profile.id).lookup(domain, op_type)
        opset = self.opset_of(domain)
        return reg is not None and opset is not None and reg.registered_at(opset)

    def requested_here(self, site: Site) -> bool:
        """A finding at this node named this pass as its fix."""
        return (site.path, site.label) in self.requested

    def findings_at(self, site: Site) -> list[Finding]:
        """The findings at this node that name this pass as their fix: what a pass reads its parameters
        from (the rule put them in ``data``)."""
        return self.asked.get((site.path, site.label), [])

    def wanted(self, site: Site) -> bool:
        """Rewrite the node when the profile lacks it at the model opset or a finding asks for it."""
        return not self.registered(site.node.op_type, site.node.domain) or self.requested_here(site)

    # ---- names

    def fresh(self, base: str) -> str:
        return self.names.fresh(base)

    # ---- the walk

    def run(self, rewrite: Callable[[Site], "Emitter | str | None"], op_types: Iterable[str], domain: str = "") -> None:
        """Call ``rewrite`` on every node of these op types (in any graph, innermost graphs first).

        After rewriting ops of a custom ``domain`` (the com.microsoft decompositions), the
        domain's opset import goes too once no node uses it (:meth:`drop_unused_domain`).
        """
        types = frozenset(op_types)
        domains = STANDARD_DOMAINS if domain in STANDARD_DOMAINS else (domain,)
        self._visit(self.model.graph, ROOT_GRAPH, types, domains, rewrite)
        if self.rewritten and domain not in STANDARD_DOMAINS:
            self.drop_unused_domain(domain)

    def _visit(self, graph, path, types, domains, rewrite) -> None:
        for index, node in enumerate(graph.node):
            for sub_path, sub in nested_graphs(node, index, path):
                self._visit(sub, sub_path, types, domains, rewrite)
        edits: dict[int, Emitter] = {}
        for index, node in enumerate(graph.node):
            if node.op_type not in types or node.domain not in domains:
                continue
            site = Site(graph, path, index, node)
            try:
                outcome = rewrite(site)
            except Unsupported as exc:
                outcome = str(exc)
            if isinstance(outcome, Emitter):
                edits[index] = outcome
                self.rewritten.append(site.label)
            elif isinstance(outcome, str):
                self.notes.append(left(f"{node.op_type} '{site.label}' left as is: {outcome}", site.label))
        if edits:
            _splice(graph, edits)

    # ---- after the walk

    def prune_initializers(self, candidates: Iterable[str]) -> None:
        """Drop initializers (and their graph-input entries) that no node reads any more."""
        prune_initializers(self.model, candidates)

    def drop_stale_value_info(self) -> None:
        """Forget value_info of values no node produces any more (removed optional outputs)."""
        for graph in iter_graphs(self.model.graph):
            produced = {o for n in graph.node for o in n.output if o}
            produced |= {i.name for i in graph.input}
            keep = [v for v in graph.value_info if v.name in produced]
            if len(keep) != len(graph.value_info):
                del graph.value_info[:]
                graph.value_info.extend(keep)

    def drop_unused_domain(self, domain: str) -> bool:
        """Remove the opset import of a domain no node (nor local function) uses any more.

        :meth:`run` does this after rewriting a custom domain's ops: single-opset-import runs
        before the decompositions in the pipeline, while the custom nodes still hold the import.
        """
        if any(n.domain == domain for g in iter_graphs(self.model.graph) for n in g.node):
            return False
        if any(f.domain == domain or any(n.domain == domain for n in f.node) for f in self.model.functions):
            return False
        keep = [e for e in self.model.opset_import if e.domain != domain]
        if len(keep) == len(self.model.opset_import):
            return False
        del self.model.opset_import[:]
        self.model.opset_import.extend(keep)
        self.notes.append(f"opset import of '{domain}' removed: no node uses it any more")
        return True

    def result(self, what: str) -> PassResult:
        notes = list(self.notes)
        if self.rewritten:
            notes.insert(0, f"{len(self.rewritten)} {what} rewritten")
            self.drop_stale_value_info()
        return PassResult(self.model, bool(self.rewritten), notes)


class NodeRewrite(FixPass):
    """A pass that replaces nodes of ``op_types`` (in ``domain``) one at a time.

    ``selects`` says which nodes it rewrites (by default the ones a finding names for this
    pass); ``rewrite`` gives a node's replacement as an Emitter, or says why not (raise
    Unsupported, or return the reason); ``counted`` is what the note counts ("Pad node(s)").
    A rewrite that stops reading a value lists it in ``self.replaced``: initializers among them
    that nothing reads any more are dropped at the end, after ``finish`` (other clean-up across
    nodes).
    """

    counted: ClassVar[str]
    op_types: ClassVar[frozenset[str] | None] = None  # the node types it visits
    domain: ClassVar[str] = ""

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        self.replaced: list[str] = []
        rw = Rewriter(model, ctx, self.name)
        see_through_contrib_ops(rw)
        rw.run(lambda site: self.rewrite(rw, site) if self.selects(rw, site) else None, self.op_types or (),
               domain=self.domain)
        self.finish(rw)
        rw.prune_initializers(self.replaced)
        return rw.result(self.counted)

    def selects(self, rw: Rewriter, site: Site) -> bool:
        return rw.requested_here(site)

    def rewrite(self, rw: Rewriter, site: Site) -> "Emitter | str | None":
        """An Emitter that replaces the node, a reason it stays, or None to leave it silently."""
        raise NotImplementedError

    def finish(self, rw: Rewriter) -> None:
        """After every node was visited (nothing by default)."""


class Decomposition(NodeRewrite):
    """Rewrites a standard op where the profile lacks it at the model opset, or a finding asks."""

    def selects(self, rw: Rewriter, site: Site) -> bool:
        return rw.wanted(site)


class ContribDecomposition(NodeRewrite):
    """Rewrites every node of an onnxruntime contrib op: no CANN profile registers the domain.

    Every such node is a custom-domain-op finding (or unsupported-op, where the profile has
    other plugins in the domain); each subclass names its op in ``op_types``, and answers the
    findings on its nodes (``FixLink.replaces``).
    """

    domain = CONTRIB_DOMAIN
    stage = "decompose"
    safe = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "answers" not in cls.__dict__ and cls.op_types:
            cls.answers = tuple(link for op in sorted(cls.op_types) for link in FixLink.replaces(op, cls.domain))

    def selects(self, rw: Rewriter, site: Site) -> bool:
        return True


# --------------------------------------------------------------------------- helpers


def see_through_contrib_ops(rw: Rewriter) -> None:
    """Give the rewriter the types of values past onnxruntime's own ops, when the model has any
    (onnx inference stops at them: see ``_contrib_shapes``)."""
    from atccheck.passes._contrib_shapes import contrib_aware_shapes, needs_help

    if needs_help(rw.model):
        rw._shapes = contrib_aware_shapes(rw.model, dict(rw.ctx.input_shapes), rw.shapes)


def _splice(graph: "onnx.GraphProto", edits: dict[int, Emitter]) -> None:
    nodes = []
    for index, node in enumerate(graph.node):
        if index in edits:
            nodes.extend(edits[index].nodes)
        else:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    for emitter in edits.values():
        graph.initializer.extend(emitter.initializers)
