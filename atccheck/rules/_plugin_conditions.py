"""The condition language of the plugin facts (op_tables/plugin_refusals.json, op_facts.json ignored-attr).

A condition is a JSON object with a ``kind`` from :data:`KINDS`; it says, of one ONNX node, when a
CANN parser plugin refuses it or computes something else. :func:`evaluate` answers True, False or
None (unknown: the node does not carry the fact, e.g. an input rank shape inference left open);
``all``/``any``/``not`` combine answers with Kleene logic. Attributes are read as the plugins read
them, from the node's own attribute list: an attribute of another type than the condition names is
absent, and an absent attribute takes the condition's ``default`` (the plugin's default, which may
differ from ONNX's). Input and output counts include empty names, as the plugins see them.
:func:`problems` validates a condition; ``docs/tables.md`` describes each kind.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from atccheck.context import NodeContext

Condition = Mapping[str, Any]
Verdict = bool | None

# kind -> (required fields, optional fields)
KINDS: Mapping[str, tuple[frozenset[str], frozenset[str]]] = {
    "attr-missing": (frozenset({"attr"}), frozenset({"type"})),
    "attr-in": (frozenset({"attr", "values"}), frozenset({"default"})),
    "attr-not-in": (frozenset({"attr", "values"}), frozenset({"default"})),
    "attr-outside": (frozenset({"attr"}), frozenset({"min", "max", "default"})),
    "attr-parity": (frozenset({"attr", "parity"}), frozenset()),
    "attr-length-in": (frozenset({"attr"}), frozenset({"lengths", "min"})),
    "attr-length-odd": (frozenset({"attr"}), frozenset()),
    "attr-other-than": (frozenset({"names"}), frozenset()),
    "attr-axis-in": (frozenset({"attr", "axes", "default", "input"}), frozenset()),
    "input-count-in": (frozenset({"counts"}), frozenset()),
    "input-absent": (frozenset({"index"}), frozenset()),
    "input-rank-in": (frozenset({"index", "ranks"}), frozenset()),
    "input-dtype-not-in": (frozenset({"index", "dtypes"}), frozenset()),
    "output-count-in": (frozenset({"counts"}), frozenset()),
    "output-used": (frozenset({"index"}), frozenset()),
    "output-count-differs": (frozenset({"attr", "measure"}), frozenset()),
    "all": (frozenset({"of"}), frozenset()),
    "any": (frozenset({"of"}), frozenset()),
    "not": (frozenset({"of"}), frozenset()),
}

# The attribute types a condition may name, as AttributeProto.AttributeType numbers.
ATTR_TYPES = {"float": 1, "int": 2, "string": 3, "floats": 6, "ints": 7}
PARITIES = ("odd", "even")
MEASURES = ("length", "value")

_ABSENT = object()


def kinds_in(condition: Condition | None) -> Iterator[str]:
    """Every kind a condition uses, combinators included."""
    if condition is None:
        return
    yield condition["kind"]
    inner = condition.get("of")
    if isinstance(inner, list):
        for item in inner:
            yield from kinds_in(item)
    elif isinstance(inner, Mapping):
        yield from kinds_in(inner)


def problems(condition: Any, where: str = "condition") -> list[str]:
    """What is wrong with a condition (an empty list when it is well formed)."""
    if not isinstance(condition, Mapping) or condition.get("kind") not in KINDS:
        return [f"{where}: not a condition of a known kind: {condition!r}"[:200]]
    kind = condition["kind"]
    required, optional = KINDS[kind]
    fields = set(condition) - {"kind"}
    found = []
    if not required <= fields:
        found.append(f"{where}: {kind} lacks {sorted(required - fields)}")
    if fields - required - optional:
        found.append(f"{where}: {kind} has unknown fields {sorted(fields - required - optional)}")
    if kind in ("all", "any"):
        items = condition.get("of")
        if not isinstance(items, list) or not items:
            return found + [f"{where}: {kind} needs a non-empty list"]
        for i, item in enumerate(items):
            found += problems(item, f"{where}.{kind}[{i}]")
    elif kind == "not":
        found += problems(condition.get("of"), f"{where}.not")
    elif kind == "attr-missing" and condition.get("type") not in (None, *ATTR_TYPES):
        found.append(f"{where}: unknown attribute type {condition.get('type')!r}")
    elif kind == "attr-parity" and condition.get("parity") not in PARITIES:
        found.append(f"{where}: parity must be odd or even")
    elif kind == "attr-length-in" and ("lengths" in condition) == ("min" in condition):
        found.append(f"{where}: attr-length-in takes lengths or min")
    elif kind == "output-count-differs" and condition.get("measure") not in MEASURES:
        found.append(f"{where}: measure must be length or value")
    elif kind == "attr-outside" and "min" not in condition and "max" not in condition:
        found.append(f"{where}: attr-outside needs min or max")
    return found


# --------------------------------------------------------------------------- evaluation


def evaluate(condition: Condition, node: NodeContext) -> Verdict:
    """Whether the condition holds for the node: True, False, or None when it cannot be told."""
    return _EVALUATORS[condition["kind"]](condition, node)


def _raw(node: NodeContext) -> dict[str, tuple[int, Any]]:
    """name -> (AttributeProto type, Python value) of the node's own attributes, whatever their type."""
    from atccheck.model.graph import attribute_values

    values = attribute_values(node.node)
    return {a.name: (a.type, values[a.name]) for a in node.node.attribute if a.name in values}


def _value(node: NodeContext, c: Condition) -> Any:
    found = _raw(node).get(c["attr"])
    if found is None:
        return c.get("default", _ABSENT)
    return found[1]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return False
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-9)
        except (TypeError, ValueError):
            return False
    return bool(a == b)


def _attr_missing(c: Condition, node: NodeContext) -> Verdict:
    found = _raw(node).get(c["attr"])
    if found is None:
        return True
    return "type" in c and found[0] != ATTR_TYPES[c["type"]]


def _attr_in(c: Condition, node: NodeContext) -> Verdict:
    value = _value(node, c)
    return value is not _ABSENT and any(_same(value, v) for v in c["values"])


def _attr_not_in(c: Condition, node: NodeContext) -> Verdict:
    value = _value(node, c)
    return value is not _ABSENT and not any(_same(value, v) for v in c["values"])


def _attr_outside(c: Condition, node: NodeContext) -> Verdict:
    value = _value(node, c)
    if value is _ABSENT:
        return False
    items = value if isinstance(value, list) else [value]
    numbers = [v for v in items if isinstance(v, (int, float)) and not isinstance(v, bool)]
    low, high = c.get("min"), c.get("max")
    return any((low is not None and v < low) or (high is not None and v > high) for v in numbers)


def _attr_parity(c: Condition, node: NodeContext) -> Verdict:
    value = _value(node, c)
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    return (value % 2 == 1) == (c["parity"] == "odd")


def _length(node: NodeContext, attr: str) -> int:
    found = _raw(node).get(attr)
    if found is None:
        return 0
    value = found[1]
    return len(value) if isinstance(value, (list, str)) else 1


def _attr_length_in(c: Condition, node: NodeContext) -> Verdict:
    length = _length(node, c["attr"])
    if "min" in c:
        return length >= c["min"]
    return length in c["lengths"]


def _attr_length_odd(c: Condition, node: NodeContext) -> Verdict:
    found = _raw(node).get(c["attr"])
    return found is not None and isinstance(found[1], list) and len(found[1]) % 2 == 1


def _attr_other_than(c: Condition, node: NodeContext) -> Verdict:
    return any(a.name not in c["names"] for a in node.node.attribute)


def _attr_axis_in(c: Condition, node: NodeContext) -> Verdict:
    axis = _value(node, c)
    if not isinstance(axis, int) or isinstance(axis, bool):
        return False
    axes = [int(a) for a in c["axes"]]
    if axis >= 0 and all(a >= 0 for a in axes):
        return axis in axes
    info = node.input_info(int(c["input"]))
    rank = info.rank if info is not None else None
    if rank is None:
        return None
    return axis % rank in {a % rank for a in axes} if rank else False


def _input_count_in(c: Condition, node: NodeContext) -> Verdict:
    return len(node.node.input) in c["counts"]


def _input_absent(c: Condition, node: NodeContext) -> Verdict:
    return not node.input_name(int(c["index"]))


def _input_rank_in(c: Condition, node: NodeContext) -> Verdict:
    if not node.input_name(int(c["index"])):
        return False
    info = node.input_info(int(c["index"]))
    if info is None or info.rank is None:
        return None
    return info.rank in c["ranks"]


def _input_dtype_not_in(c: Condition, node: NodeContext) -> Verdict:
    if not node.input_name(int(c["index"])):
        return False
    info = node.input_info(int(c["index"]))
    name = info.dtype_name if info is not None else None
    if name is None:
        return None
    return name not in c["dtypes"]


def _output_count_in(c: Condition, node: NodeContext) -> Verdict:
    return len(node.node.output) in c["counts"]


def _output_used(c: Condition, node: NodeContext) -> Verdict:
    index = int(c["index"])
    name = node.node.output[index] if index < len(node.node.output) else ""
    if not name:
        return False
    return bool(node.ctx.graph.consumers.get(name)) or name in _graph_outputs(node)


def _graph_outputs(node: NodeContext) -> frozenset[str]:
    """The names every graph of the model returns (main graph and subgraphs)."""
    from atccheck.model.graph import subgraphs

    names: set[str] = set()
    pending = [node.ctx.model.graph]
    while pending:
        graph = pending.pop()
        names.update(o.name for o in graph.output)
        for inner in graph.node:
            pending.extend(subgraphs(inner))
    return frozenset(names)


def _output_count_differs(c: Condition, node: NodeContext) -> Verdict:
    found = _raw(node).get(c["attr"])
    if found is None:
        return False
    value = found[1]
    if c["measure"] == "length":
        measured = len(value) if isinstance(value, list) else 1
    elif isinstance(value, int) and not isinstance(value, bool):
        measured = value
    else:
        return False
    return measured != len(node.node.output)


def _all(c: Condition, node: NodeContext) -> Verdict:
    verdicts = [evaluate(item, node) for item in c["of"]]
    if any(v is False for v in verdicts):
        return False
    return None if any(v is None for v in verdicts) else True


def _any(c: Condition, node: NodeContext) -> Verdict:
    verdicts = [evaluate(item, node) for item in c["of"]]
    if any(v is True for v in verdicts):
        return True
    return None if any(v is None for v in verdicts) else False


def _not(c: Condition, node: NodeContext) -> Verdict:
    verdict = evaluate(c["of"], node)
    return None if verdict is None else not verdict


_EVALUATORS: Mapping[str, Callable[[Condition, NodeContext], Verdict]] = {
    "attr-missing": _attr_missing,
    "attr-in": _attr_in,
    "attr-not-in": _attr_not_in,
    "attr-outside": _attr_outside,
    "attr-parity": _attr_parity,
    "attr-length-in": _attr_length_in,
    "attr-length-odd": _attr_length_odd,
    "attr-other-than": _attr_other_than,
    "attr-axis-in": _attr_axis_in,
    "input-count-in": _input_count_in,
    "input-absent": _input_absent,
    "input-rank-in": _input_rank_in,
    "input-dtype-not-in": _input_dtype_not_in,
    "output-count-in": _output_count_in,
    "output-used": _output_used,
    "output-count-differs": _output_count_differs,
    "all": _all,
    "any": _any,
    "not": _not,
}


# --------------------------------------------------------------------------- text


def describe(c: Condition) -> str:
    """The condition in words, for a finding's message."""
    kind = c["kind"]
    if kind == "all":
        return " and ".join(_wrap(item) for item in c["of"])
    if kind == "any":
        return " or ".join(_wrap(item) for item in c["of"])
    if kind == "not":
        return f"not ({describe(c['of'])})"
    attr = c.get("attr")
    values = list(c.get("values") or [])
    texts = {
        "attr-missing": f"no {c.get('type', '') + ' ' if c.get('type') else ''}attribute {attr}",
        "attr-in": f"{attr}={values[0]}" if len(values) == 1 else f"{attr} in {values}",
        "attr-not-in": f"{attr}!={values[0]}" if len(values) == 1 else f"{attr} not in {values}",
        "attr-outside": f"{attr} outside [{c.get('min', '-inf')}, {c.get('max', 'inf')}]",
        "attr-parity": f"{attr} {c.get('parity')}",
        "attr-length-in": (f"{attr} of length {c['min']} or more" if "min" in c
                           else f"{attr} absent or empty" if c.get("lengths") == [0]
                           else f"{attr} of length {' or '.join(map(str, c.get('lengths', [])))}"),
        "attr-length-odd": f"{attr} of odd length",
        "attr-other-than": f"an attribute other than {', '.join(c.get('names', []))}",
        "attr-axis-in": f"{attr} (absent: {c.get('default')}) is axis {' or '.join(map(str, c.get('axes', [])))}",
        "input-count-in": f"{' or '.join(map(str, c.get('counts', [])))} inputs",
        "input-absent": f"no input {c.get('index')}",
        "input-rank-in": f"input {c.get('index')} of rank {' or '.join(map(str, c.get('ranks', [])))}",
        "input-dtype-not-in": f"input {c.get('index')} not of type {' or '.join(c.get('dtypes', []))}",
        "output-count-in": f"{' or '.join(map(str, c.get('counts', [])))} outputs",
        "output-used": f"output {c.get('index')} read",
        "output-count-differs": f"an output count other than the {c.get('measure')} of {attr}",
    }
    return texts[kind]


def _wrap(c: Condition) -> str:
    text = describe(c)
    return f"({text})" if c["kind"] in ("all", "any") else text
