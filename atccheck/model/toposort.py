"""Topological order of a graph's nodes, without networkx (whose import alone costs ~0.3 s)."""

from __future__ import annotations

import heapq
from collections.abc import Sequence


def dataflow_order(outputs: Sequence[Sequence[str]], reads: Sequence[Sequence[str]]) -> list[int] | None:
    """Node positions in topological order, the lowest ready position first; None on a cycle.

    ``outputs[i]`` and ``reads[i]`` are the names node ``i`` writes and reads. A node depends on
    the (last) node writing a name it reads, itself excepted. The order is the lexicographic
    topological sort of that dependency graph, the one ``networkx.lexicographical_topological_sort``
    gives for integer nodes.
    """
    produced_by = {name: index for index, names in enumerate(outputs) for name in names if name}
    consumers: list[list[int]] = [[] for _ in outputs]
    waiting = [0] * len(outputs)
    for index, names in enumerate(reads):
        deps = {produced_by[name] for name in names if name in produced_by}
        deps.discard(index)
        waiting[index] = len(deps)
        for dep in deps:
            consumers[dep].append(index)
    ready = [index for index, count in enumerate(waiting) if count == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        index = heapq.heappop(ready)
        order.append(index)
        for consumer in consumers[index]:
            waiting[consumer] -= 1
            if waiting[consumer] == 0:
                heapq.heappush(ready, consumer)
    return order if len(order) == len(outputs) else None
