"""Walking a model's graphs (subgraphs included) and knowing which values are constants."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from atccheck.domains import is_standard
from atccheck.findings import ROOT_GRAPH

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

# Constants up to this many elements are materialised as arrays for rules that read values.
SMALL_CONSTANT_ELEMENTS = 4096
# numpy dtype kinds of constants that are not numbers: objects, byte strings, text
NOT_NUMBERS = frozenset("OSU")


@dataclass(frozen=True)
class GraphNode:
    """A node and where it sits: graph path and position in that graph."""

    node: "onnx.NodeProto"
    graph: str
    index: int

    @property
    def op_type(self) -> str:
        return self.node.op_type

    @property
    def domain(self) -> str:
        return self.node.domain

    @property
    def label(self) -> str:
        """The node's name, or ATC-style ``<OpType>_<n>`` for an unnamed node."""
        return self.node.name or f"{self.node.op_type}_{self.index}"


# --------------------------------------------------------------------------- subgraphs and scope


def subgraphs(node: "onnx.NodeProto") -> Iterator["onnx.GraphProto"]:
    """The graphs in a node's attributes (If branches, Loop and Scan bodies)."""
    from atccheck.model import onnxpb

    for attr in node.attribute:
        if attr.type == onnxpb.AttributeProto.GRAPH:
            yield attr.g
        elif attr.type == onnxpb.AttributeProto.GRAPHS:
            yield from attr.graphs


def outer_reads(node: "onnx.NodeProto") -> set[str]:
    """Names the node's subgraphs use without defining them: its implicit inputs."""
    reads: set[str] = set()
    for graph in subgraphs(node):
        reads |= _graph_outer_reads(graph)
    return reads


def _graph_outer_reads(graph: "onnx.GraphProto") -> set[str]:
    defined = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    reads: set[str] = {o.name for o in graph.output}
    for node in graph.node:
        defined.update(o for o in node.output if o)
        reads.update(i for i in node.input if i)
        reads |= outer_reads(node)
    return reads - defined


def node_reads(node: "onnx.NodeProto") -> list[str]:
    """Explicit inputs (non-empty) followed by implicit outer-scope reads, without duplicates."""
    names = [i for i in node.input if i]
    seen = set(names)
    for name in sorted(outer_reads(node)):
        if name not in seen:
            names.append(name)
            seen.add(name)
    return names


def iter_nodes(graph: "onnx.GraphProto", path: str = ROOT_GRAPH) -> Iterator[GraphNode]:
    """Every node, depth first: a node, then the nodes of its subgraph attributes."""
    from atccheck.model import onnxpb

    for index, node in enumerate(graph.node):
        yield GraphNode(node, path, index)
        for attr in node.attribute:
            label = node.name or f"{node.op_type}_{index}"
            if attr.type == onnxpb.AttributeProto.GRAPH:
                yield from iter_nodes(attr.g, f"{path}/{label}:{attr.name}")
            elif attr.type == onnxpb.AttributeProto.GRAPHS:
                for k, sub in enumerate(attr.graphs):
                    yield from iter_nodes(sub, f"{path}/{label}:{attr.name}[{k}]")


def attribute_values(node: "onnx.NodeProto", skip: "frozenset[str] | set[str]" = frozenset()) -> dict[str, Any]:
    """Attributes as Python values (graphs and tensors left as protos).

    Attributes named in ``skip`` and attributes of a type no ONNX version defines are left out.
    """
    from atccheck.model import onnxpb

    values = {}
    defined = onnxpb.AttributeProto.AttributeType.values()
    for attr in node.attribute:
        if attr.name in skip or attr.type not in defined or attr.type == onnxpb.AttributeProto.UNDEFINED:
            continue
        if attr.type in (onnxpb.AttributeProto.GRAPH, onnxpb.AttributeProto.GRAPHS):
            values[attr.name] = attr.g if attr.type == onnxpb.AttributeProto.GRAPH else list(attr.graphs)
        else:
            value = onnxpb.attribute_value(attr)
            if isinstance(value, bytes):
                value = value.decode("utf-8", errors="replace")
            elif isinstance(value, list) and value and isinstance(value[0], bytes):
                value = [v.decode("utf-8", errors="replace") for v in value]
            values[attr.name] = value
    return values


class GraphIndex:
    """Producers, consumers and constants of every named value in the model."""

    def __init__(self, model: "onnx.ModelProto") -> None:
        self.model = model
        self.nodes: list[GraphNode] = list(iter_nodes(model.graph))
        self.producer: dict[str, GraphNode] = {}
        self.consumers: dict[str, list[GraphNode]] = {}
        for gnode in self.nodes:
            for name in gnode.node.output:
                if name:
                    self.producer[name] = gnode
            for name in gnode.node.input:
                if name:
                    self.consumers.setdefault(name, []).append(gnode)
        self.initializers: dict[str, "onnx.TensorProto"] = {}
        self._collect_initializers(model.graph)
        self.graph_inputs = {i.name for i in model.graph.input}
        self._fold_memo: dict[object, dict[str, bool]] = {}
        self._reads: dict[int, list[str]] = {}

    def reads(self, node: "onnx.NodeProto") -> list[str]:
        """``node_reads(node)``, computed once per node of this model (several rules ask)."""
        found = self._reads.get(id(node))
        if found is None:
            found = self._reads[id(node)] = node_reads(node)
        return found

    def _collect_initializers(self, graph: "onnx.GraphProto") -> None:
        for tensor in graph.initializer:
            self.initializers[tensor.name] = tensor
        for node in graph.node:
            for sub in subgraphs(node):
                self._collect_initializers(sub)

    @cached_property
    def real_inputs(self) -> list[str]:
        """Root graph inputs that are not initializer-backed (ATC's Data nodes)."""
        return [i.name for i in self.model.graph.input if i.name not in self.initializers]

    def is_constant(self, name: str) -> bool:
        """An initializer (ATC makes initializer-backed inputs constants too) or a Constant's output."""
        if name in self.initializers:
            return True
        producer = self.producer.get(name)
        return producer is not None and producer.op_type in ("Constant",) and is_standard(producer.domain)

    def const_value(self, name: str) -> "np.ndarray | None":
        """The value of a small numeric constant, or None (large, external, not a constant, or
        text: a string tensor where an op takes numbers makes the model invalid, and no rule reads
        text, so every reader of constants sees it as unknown instead of failing on it)."""
        from atccheck.model import onnxpb

        tensor = self.initializers.get(name)
        if tensor is None:
            producer = self.producer.get(name)
            if producer is None or producer.op_type != "Constant":
                return None
            for attr in producer.node.attribute:
                if attr.type == onnxpb.AttributeProto.TENSOR:
                    tensor = attr.t
                    break
                value = onnxpb.attribute_value(attr)
                import numpy as np

                if attr.name in ("value_int", "value_float"):
                    return np.array(value)
                if attr.name in ("value_ints", "value_floats"):
                    return np.array(value)
                return None
            if tensor is None:
                return None
        count = 1
        for d in tensor.dims:
            count *= d
        if count > SMALL_CONSTANT_ELEMENTS or tensor.data_location == onnxpb.TensorProto.EXTERNAL:
            return None
        try:
            value = onnxpb.to_array(tensor)
        except Exception:  # malformed payloads: treat as unknown
            return None
        if value.dtype.kind in NOT_NUMBERS:  # strings where the rules and folding read numbers: unknown
            return None
        return value

    def is_foldable(self, name: str, static: "Callable[[str], bool] | None" = None) -> bool:
        """Computable before run time: from constants only, or from shapes known to be static.

        ``static(name)`` says whether a value's shape is fully known, which makes the output of
        a Shape or Size node reading it a constant too.
        """
        memo = self._fold_memo.setdefault(static, {})
        known = memo.get(name)
        if known is not None:
            return known
        # (value, None) asks for a value; (value, inputs) decides it once its inputs are decided.
        stack: list[tuple[str, list[str] | None]] = [(name, None)]
        while stack:
            current, deps = stack.pop()
            if current in memo:
                continue
            if deps is not None:
                memo[current] = all(memo[d] for d in deps)
                continue
            terminal, deps = self._fold_step(current, static)
            if terminal is not None:
                memo[current] = terminal
            else:
                stack.append((current, deps))
                stack.extend((d, None) for d in deps if d not in memo)
        return memo[name]

    def _fold_step(self, name: str, static: "Callable[[str], bool] | None") -> tuple[bool | None, list[str]]:
        """(answer, []) when the answer needs no inputs, else (None, inputs to decide first)."""
        if name in self.initializers:
            return True, []
        producer = self.producer.get(name)
        if producer is None:
            return False, []  # a graph input or an outer-scope value
        node = producer.node
        op_type = node.op_type
        if op_type == "Constant" and is_standard(node.domain):
            return True, []
        if op_type in NONDETERMINISTIC_OPS:
            return False, []  # random
        if static is not None and op_type in ("Shape", "Size"):
            return bool(node.input) and static(node.input[0]), []
        for attr in node.attribute:
            if attr.type in _SUBGRAPH_ATTRIBUTES:  # control flow
                return False, []
        return None, [i for i in node.input if i]


NONDETERMINISTIC_OPS = frozenset(
    {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial", "Bernoulli"}
)
# onnx.AttributeProto.GRAPH and GRAPHS (fixed by the ONNX protobuf schema), kept as plain
# ints so the fold walk does not import onnx per value.
_SUBGRAPH_ATTRIBUTES = frozenset({5, 10})
