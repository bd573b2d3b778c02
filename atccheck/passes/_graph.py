"""Graph helpers shared by the fix passes: walk nested graphs, fresh names, opsets, shapes, initializers.

The rewrite framework (:class:`~atccheck.passes._rewrite.Rewriter` and friends) is in
:mod:`atccheck.passes._rewrite`; these helpers need none of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from atccheck.domains import STANDARD_DOMAINS
from atccheck.model.graph import subgraphs
from atccheck.passes.base import PassContext

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.model.shapes import ShapeIndex



class Names:
    """Fresh names that collide with nothing in the model."""

    def __init__(self, model: "onnx.ModelProto") -> None:
        self.taken = all_names(model)

    def fresh(self, base: str) -> str:
        name, k = base, 1
        while name in self.taken:
            name = f"{base}_{k}"
            k += 1
        self.taken.add(name)
        return name


def shapes_of(model: "onnx.ModelProto", ctx: PassContext) -> "ShapeIndex":
    """Inferred shapes of the model as handed to the pass (the pipeline's, when it has them).

    Read this before changing the model: the pipeline's shapes describe the model as it was.
    """
    if ctx.context is not None:  # the pipeline's rules already inferred this model's shapes
        return ctx.context.shapes
    from atccheck.model.shapes import infer_shapes

    return infer_shapes(model, dict(ctx.input_shapes))


def opset_of(model: "onnx.ModelProto", domain: str = "") -> int | None:
    """The model's opset import of a domain (``""`` and ``"ai.onnx"`` are one); None when not imported."""
    aliases = STANDARD_DOMAINS if domain in STANDARD_DOMAINS else (domain,)
    for entry in model.opset_import:
        if entry.domain in aliases:
            return int(entry.version)
    return None


def iter_graphs(graph: "onnx.GraphProto") -> Iterator["onnx.GraphProto"]:
    """A graph and all graphs nested in its nodes' attributes."""
    yield graph
    for node in graph.node:
        for sub in subgraphs(node):
            yield from iter_graphs(sub)


def nested_graphs(node: "onnx.NodeProto", index: int, path: str) -> Iterator[tuple[str, "onnx.GraphProto"]]:
    """The graphs in the attributes of the node at ``index`` of the graph at ``path``, each with
    its own path as findings spell it (``main/If_0:then_branch``, ``main/Loop_3:body``)."""
    import onnx

    label = node.name or f"{node.op_type}_{index}"
    for attr in node.attribute:
        if attr.type == onnx.AttributeProto.GRAPH:
            yield f"{path}/{label}:{attr.name}", attr.g
        elif attr.type == onnx.AttributeProto.GRAPHS:
            for k, sub in enumerate(attr.graphs):
                yield f"{path}/{label}:{attr.name}[{k}]", sub


def all_names(model: "onnx.ModelProto") -> set[str]:
    """Every value, initializer and node name in every graph (new names must avoid them all)."""
    names: set[str] = set()
    for graph in iter_graphs(model.graph):
        names.update(i.name for i in graph.input)
        names.update(o.name for o in graph.output)
        names.update(v.name for v in graph.value_info)
        names.update(t.name for t in graph.initializer)
        for node in graph.node:
            names.update(node.input)
            names.update(node.output)
            names.add(node.name)
    names.discard("")
    return names


def used_names(model: "onnx.ModelProto") -> set[str]:
    """Names some node reads or some graph outputs."""
    used: set[str] = set()
    for graph in iter_graphs(model.graph):
        used.update(o.name for o in graph.output)
        for node in graph.node:
            used.update(node.input)
    for function in model.functions:
        for node in function.node:
            used.update(node.input)
    return used


def graph_reads(graph: "onnx.GraphProto") -> set[str]:
    """Names the graph's outputs and its nodes' inputs read, nodes of nested graphs included."""
    used = {o.name for o in graph.output}
    for sub in iter_graphs(graph):
        for node in sub.node:
            used.update(node.input)
    return used


def drop_initializers(graph: "onnx.GraphProto", names: Iterable[str]) -> None:
    """Remove the graph's initializers of these names, and the graph inputs that declare them."""
    names = set(names)
    dropped = {t.name for t in graph.initializer if t.name in names}
    if not dropped:
        return
    keep = [t for t in graph.initializer if t.name not in dropped]
    del graph.initializer[:]
    graph.initializer.extend(keep)
    inputs = [i for i in graph.input if i.name not in dropped]
    if len(inputs) != len(graph.input):
        del graph.input[:]
        graph.input.extend(inputs)


def prune_initializers(model: "onnx.ModelProto", candidates: Iterable[str]) -> None:
    """Drop the initializers among ``candidates`` that nothing in the model reads any more."""
    wanted = set(candidates)
    if not wanted:
        return
    unused = wanted - used_names(model)
    for graph in iter_graphs(model.graph):
        drop_initializers(graph, unused)


def consumers(model: "onnx.ModelProto", name: str) -> int:
    """How many node inputs and graph outputs, in any graph, read this value."""
    count = 0
    for graph in iter_graphs(model.graph):
        count += sum(1 for o in graph.output if o.name == name)
        for node in graph.node:
            count += sum(1 for i in node.input if i == name)
    return count


def is_float(elem_type: int | None) -> bool:
    """float16, float32 or float64: the types the decompositions write constants for."""
    from onnx import TensorProto

    return elem_type in (TensorProto.FLOAT16, TensorProto.FLOAT, TensorProto.DOUBLE)


def np_dtype(elem_type: int):
    from onnx import helper

    return helper.tensor_dtype_to_np_dtype(elem_type)


def elem_name(elem_type: int) -> str:
    from atccheck.model.shapes import dtype_name

    return dtype_name(elem_type) or "of unknown type"
