"""decompose-einsum: Einsum equations ATC rejects into Transpose/Reshape/MatMul/ReduceSum."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from math import prod
from typing import TYPE_CHECKING, ClassVar

from atccheck.passes._rewrite import Emitter, Rewriter, Site, Unsupported
from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx

Operand = tuple[str, list[str]]  # value name, one label per axis


@register_pass
class DecomposeEinsum(FixPass):
    """Rewrite Einsum as Transpose, Reshape, MatMul and ReduceSum.

    Applies to standard-domain ``Einsum`` nodes when the target profile does not register
    Einsum at the model opset (CANN 5.0 has no plugin), when the profile's published list
    restricts the equation and this one is not on it verbatim (CANN 8.0/9.0 accept 20 fixed
    two-input equations, ``op_tables/attr_limits.json``), or when a finding names this pass.
    Handles explicit and implicit equations with any number of operands (contracted left to
    right), batch labels (kept as MatMul batch axes), contracted labels, free labels, labels
    summed away (ReduceSum first), the single-operand transpose/sum case, and ``...`` when
    the operand ranks are known, its axes broadcasting (size 1 against n, or fewer axes on
    one side) as MatMul batch axes do. A Reshape is needed only when a group (free or
    contracted labels of one side) has other than one label; it then needs those sizes to
    be static (one unknown may be -1); batch axes are copied (Reshape 0). A label repeated
    within one operand (a diagonal, or a trace once summed) is taken first: its two axes
    merged and the diagonal elements gathered, which needs the label's size. Left untouched,
    with a note: sizes that do not broadcast, and groupings or diagonals whose sizes are
    unknown. Exact up to float rounding (summation order changes).
    """

    name = "decompose-einsum"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "Einsum"),
        FixLink("opset-not-registered", "Einsum"),
        FixLink("attr-out-of-range", "Einsum"),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Einsum"})
    safe = True
    tolerance = 1e-4
    rtol = 1e-4

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        from atccheck.tables import tables

        rw = Rewriter(model, ctx, self.name)
        accepted = {
            str(v).replace(" ", "")
            for limit in tables().attr_limits_for("Einsum", ctx.target.profile.id)
            if limit.attr == "equation" and limit.kind == "enum"
            for v in limit.values or ()
        }

        def rewrite(site: Site) -> Emitter | str | None:
            equation = str(site.attr("equation", "")).replace(" ", "")
            listed = not accepted or equation in accepted
            if rw.registered("Einsum") and listed and not rw.requested_here(site):
                return None
            names = list(site.node.input)
            infos = [rw.info(n) for n in names]
            ranks = [i.rank if i is not None else None for i in infos]
            terms, out = parse(equation, ranks)
            sizes = label_sizes(terms, [i.shape if i is not None else None for i in infos])
            em = Emitter(rw, site)
            operands = [take_diagonals(em, operand, sizes) for operand in zip(names, terms)]
            result = contract(em, operands, out, sizes)
            em.finish(result, site.output(0))
            return em

        rw.run(rewrite, self.op_types or ())
        return rw.result("Einsum node(s)")


# --------------------------------------------------------------------------- the equation


def parse(equation: str, ranks: Sequence[int | None]) -> tuple[list[list[str]], list[str]]:
    """Labels per operand and of the output; ``...`` becomes labels '...0', '...1', ..."""
    lhs, arrow, rhs = equation.partition("->")
    raw_terms = lhs.split(",")
    if len(raw_terms) != len(ranks):
        raise Unsupported(f"the equation names {len(raw_terms)} operand(s), the node has {len(ranks)}")
    pieces = []
    ellipsis = 0
    for raw, rank in zip(raw_terms, ranks):
        head, dots, tail = raw.partition("...")
        if not (head + tail).isalpha() and (head + tail):
            raise Unsupported(f"'{raw}' is not a list of letters")
        if dots:
            if rank is None:
                raise Unsupported("an ellipsis needs the operand ranks, which shape inference did not find")
            count = rank - len(head) - len(tail)
            if count < 0:
                raise Unsupported(f"'{raw}' has more labels than its operand has axes")
            ellipsis = max(ellipsis, count)
            pieces.append((head, count, tail))
        else:
            if rank is not None and rank != len(raw):
                raise Unsupported(f"'{raw}' does not match an operand of rank {rank}")
            pieces.append((head, 0, ""))
    dims = [f"...{k}" for k in range(ellipsis)]
    terms = [list(head) + dims[ellipsis - count :] + list(tail) for head, count, tail in pieces]
    if not arrow:
        counts = Counter(label for term in terms for label in term if not label.startswith("..."))
        return terms, dims + sorted(label for label, n in counts.items() if n == 1)
    head, dots, tail = rhs.partition("...")
    if ellipsis and not dots:
        raise Unsupported("the output drops the ellipsis axes")
    out = list(head) + (dims if dots else []) + list(tail)
    known = {label for term in terms for label in term}
    if len(set(out)) != len(out) or not set(out) <= known:
        raise Unsupported(f"output '{rhs}' repeats a label or names one no operand has")
    return terms, out


def label_sizes(terms: list[list[str]], shapes: Sequence[Sequence | None]) -> dict[str, int | None]:
    """The size of every label where some operand's shape states it."""
    sizes: dict[str, int | None] = {}
    for term, shape in zip(terms, shapes):
        for axis, label in enumerate(term):
            dim = shape[axis] if shape is not None and axis < len(shape) else None
            dim = dim if isinstance(dim, int) and dim >= 0 else None
            known = sizes.get(label)
            if known is not None and dim is not None and known != dim:
                if not label.startswith("...") or 1 not in (known, dim):
                    raise Unsupported(f"label '{label}' has sizes {known} and {dim}, which do not broadcast")
                dim = max(known, dim)  # an ellipsis axis of size 1 broadcasts (MatMul batch axes do)
            elif known is not None:
                dim = known
            sizes[label] = dim
    return sizes


# --------------------------------------------------------------------------- the rewrite


def contract(em: Emitter, operands: list[Operand], out: list[str], sizes: dict[str, int | None]) -> str:
    """Contract operands left to right, then sum and order what is left as ``out``."""
    while len(operands) > 1:
        (a, b), rest = operands[:2], operands[2:]
        keep = set(out).union(*(labels for _, labels in rest))
        a = sum_out(em, a, keep | set(b[1]))
        b = sum_out(em, b, keep | set(a[1]))
        operands = [matmul(em, a, b, keep, sizes), *rest]
    value, labels = sum_out(em, operands[0], set(out))
    return em.transpose(value, [labels.index(label) for label in out])


def take_diagonals(em: Emitter, operand: Operand, sizes: dict[str, int | None]) -> Operand:
    """An operand whose label repeats ('bii') reduced to its diagonal ('bi'): the two axes moved
    last, merged (Reshape), and the diagonal's elements taken (Gather of 0, n+1, 2(n+1), ...)."""
    import numpy as np

    value, labels = operand
    labels = list(labels)
    while True:
        repeated = next((x for x in labels if labels.count(x) > 1), None)
        if repeated is None:
            return value, labels
        size = sizes.get(repeated)
        if size is None:
            raise Unsupported(f"the diagonal over label '{repeated}' needs its size, which is not static")
        first = labels.index(repeated)
        second = labels.index(repeated, first + 1)
        others = [k for k in range(len(labels)) if k not in (first, second)]
        value = em.transpose(value, others + [first, second])
        value = em.reshape(value, [0] * len(others) + [size * size])
        diagonal = em.const(np.arange(size, dtype=np.int64) * (size + 1), "diagonal")
        value = em.op("Gather", [value, diagonal], axis=len(others))
        labels = [labels[k] for k in others] + [repeated]


def sum_out(em: Emitter, operand: Operand, keep: set[str]) -> Operand:
    value, labels = operand
    axes = [k for k, label in enumerate(labels) if label not in keep]
    if not axes:
        return operand
    return em.reduce("ReduceSum", value, axes, keepdims=0), [label for label in labels if label in keep]


def matmul(em: Emitter, a: Operand, b: Operand, keep: set[str], sizes: dict[str, int | None]) -> Operand:
    (va, la), (vb, lb) = a, b
    batch = [x for x in la if x in lb and x in keep]
    summed = [x for x in la if x in lb and x not in keep]
    free_a = [x for x in la if x not in lb]
    free_b = [x for x in lb if x not in la]
    left = em.transpose(va, [la.index(x) for x in batch + free_a + summed])
    right = em.transpose(vb, [lb.index(x) for x in batch + summed + free_b])
    if not batch and len(summed) == 1 and len(free_b) == 1:
        # (..., k) x (k, n): MatMul treats A's leading axes as batch, no reshape needed
        return em.op("MatMul", [left, right]), free_a + free_b
    left = regroup(em, left, batch, [free_a, summed], sizes)
    right = regroup(em, right, batch, [summed, free_b], sizes)
    product = em.op("MatMul", [left, right])
    if len(free_a) != 1 or len(free_b) != 1:
        product = reshape(em, product, batch, [[x] for x in free_a + free_b], sizes)
    return product, batch + free_a + free_b


def regroup(em: Emitter, value: str, batch: list[str], groups: list[list[str]], sizes: dict[str, int | None]) -> str:
    """Merge each group of trailing axes into one (a reshape), unless each is one axis already."""
    if all(len(group) == 1 for group in groups):
        return value
    return reshape(em, value, batch, groups, sizes)


def reshape(em: Emitter, value: str, batch: list[str], groups: list[list[str]], sizes: dict[str, int | None]) -> str:
    # batch axes lead the value and the result: 0 makes Reshape copy each (right when it broadcasts)
    shape: list[int | None] = [0] * len(batch)
    for group in groups:
        dims = [sizes[x] for x in group]
        shape.append(prod(dims) if None not in dims else (-1 if len(group) == 1 else None))  # type: ignore[arg-type]
    if None in shape or shape.count(-1) > 1:
        raise Unsupported("merging labels needs their sizes, which are not static")
    return em.reshape(value, shape)  # type: ignore[arg-type]
