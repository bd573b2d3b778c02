"""What a rule sees: the model, its inferred shapes, the target and the support tables."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from atccheck.domains import opset_for
from atccheck.findings import Location
from atccheck.model.graph import GraphIndex, GraphNode, attribute_values
from atccheck.model.loading import LoadedModel
from atccheck.model.schema import attribute_type_mismatches
from atccheck.model.shapes import ShapeIndex, TensorInfo
from atccheck.tables import AscendMapping, Kernel, Registration, RegistryView, Tables, normalize_domain
from atccheck.target import Target

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx


class CheckContext:
    """One model checked against one target. Built once per (model, target); read-only for rules."""

    def __init__(
        self,
        loaded: LoadedModel,
        shapes: ShapeIndex,
        target: Target,
        tables: Tables,
        input_shapes: Mapping[str, tuple[int, ...]] | None = None,
        options: Mapping[str, Any] | None = None,
        graph: GraphIndex | None = None,
        folded_values: "Mapping[str, np.ndarray] | None" = None,
    ) -> None:
        self.loaded = loaded
        self.model: "onnx.ModelProto" = loaded.model
        self.shapes = shapes
        self.target = target
        self.tables = tables
        self.input_shapes = dict(input_shapes or {})
        self.options = dict(options or {})
        self.graph = graph or GraphIndex(loaded.model)
        self.folded_values = folded_values or {}  # values constant folding computed (model/folding.py)
        self.registry: RegistryView = tables.registry(target.profile.id)
        # The precision preflight (atccheck.precision), run before the rules when options ask for it.
        self.numerics: Any = None
        # Answers that depend only on the model and the target, by a key their helper owns: asked once
        # per check, whether the preflight or a rule asks first.
        self.memo: dict[Any, Any] = {}

    # ---- opsets and domains

    @cached_property
    def opset_imports(self) -> dict[str, int]:
        """The model's opset_import, keyed by the raw domain string."""
        return {entry.domain: entry.version for entry in self.model.opset_import}

    def opset_for(self, domain: str) -> int | None:
        """The model opset the parser uses for a node domain ('' and 'ai.onnx' are one domain)."""
        return opset_for(self.opset_imports, domain)

    @cached_property
    def local_functions(self) -> frozenset[tuple[str, str]]:
        return frozenset((f.domain, f.name) for f in self.model.functions)

    # ---- values

    def info(self, name: str) -> TensorInfo | None:
        return self.shapes.get(name) if name else None

    def is_static(self, name: str) -> bool:
        info = self.info(name)
        return info is not None and info.is_static

    def is_constant(self, name: str) -> bool:
        return self.graph.is_constant(name)

    def is_foldable(self, name: str) -> bool:
        """A constant, or computable from constants and static shapes before run time."""
        return self.graph.is_foldable(name, self.is_static)

    def const_value(self, name: str) -> "np.ndarray | None":
        return self.graph.const_value(name)

    def known_value(self, name: str) -> "np.ndarray | None":
        """The value of a small constant, or of a value constant folding computes before run time."""
        found = self.folded_values.get(name) if name else None
        return found if found is not None else self.graph.const_value(name)

    # ---- kernels

    def registration(self, gnode: GraphNode) -> Registration | None:
        return self.registry.lookup(gnode.domain, gnode.op_type)

    def mappings(self, gnode: GraphNode) -> tuple[AscendMapping, ...]:
        """Ascend IR ops the node's registration produces at the model opset.

        Doc-built profiles borrow the mapping of the nearest source registry; when that
        source lists no mapping at exactly this opset, all of its mappings are returned.
        """
        reg = self.registration(gnode)
        opset = self.opset_for(gnode.domain)
        if reg is None or opset is None:
            return ()
        return reg.mapping_at(opset) or reg.ascend

    @cached_property
    def has_kernel_facts(self) -> bool:
        return self.tables.has_kernel_facts(self.target.profile.kernel_release, self.target.soc.kernel_family)

    def kernel(self, ascend_op: str) -> Kernel | None:
        return self.tables.kernel(self.target.profile.kernel_release, self.target.soc.kernel_family, ascend_op)


@dataclass(frozen=True)
class NodeContext:
    """A node as a rule sees it."""

    gnode: GraphNode
    ctx: CheckContext

    @property
    def node(self) -> "onnx.NodeProto":
        return self.gnode.node

    # Cached: rules ask for these thousands of times per check, and a NodeContext lives for one
    # check of an unchanging model.
    @cached_property
    def op_type(self) -> str:
        return self.gnode.op_type

    @cached_property
    def domain(self) -> str:
        return self.gnode.domain

    @property
    def label(self) -> str:
        return self.gnode.label

    @cached_property
    def opset(self) -> int | None:
        return self.ctx.opset_for(self.domain)

    @property
    def parser_key(self) -> str:
        """The key ATC's parser looks the node up by: ``<domain>::<opset>::<OpType>``."""
        opset = self.opset
        return f"{normalize_domain(self.domain)}::{opset if opset is not None else '?'}::{self.op_type}"

    @property
    def location(self) -> Location:
        return Location(graph=self.gnode.graph, node=self.label, op_type=self.op_type, domain=self.domain)

    @cached_property
    def malformed_attrs(self) -> tuple[tuple[str, str, str], ...]:
        """(name, type found, type declared) of attributes whose type is not the one ONNX declares."""
        return attribute_type_mismatches(self.node, self.opset)

    @cached_property
    def attrs(self) -> dict[str, Any]:
        """The attributes as Python values; one of the wrong type is left out (the engine reports it)."""
        return attribute_values(self.node, {name for name, _, _ in self.malformed_attrs})

    def attr(self, name: str, default: Any = None) -> Any:
        return self.attrs.get(name, default)

    def input_name(self, index: int) -> str:
        return self.node.input[index] if index < len(self.node.input) else ""

    def input_info(self, index: int) -> TensorInfo | None:
        return self.ctx.info(self.input_name(index))

    def output_info(self, index: int) -> TensorInfo | None:
        name = self.node.output[index] if index < len(self.node.output) else ""
        return self.ctx.info(name)
