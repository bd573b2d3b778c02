"""dataflow_order is networkx's lexicographic topological sort of the same graph, without networkx."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings, strategies as st

from atccheck.model.toposort import dataflow_order


def networkx_order(outputs, reads):
    produced_by = {name: index for index, names in enumerate(outputs) for name in names if name}
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(outputs)))
    for index, names in enumerate(reads):
        for name in names:
            producer = produced_by.get(name)
            if producer is not None and producer != index:
                graph.add_edge(producer, index)
    try:
        return list(nx.lexicographical_topological_sort(graph))
    except nx.NetworkXUnfeasible:
        return None


names = st.sampled_from([f"v{i}" for i in range(12)] + [""])
graphs = st.integers(min_value=0, max_value=10).flatmap(lambda n: st.tuples(
    st.lists(st.lists(names, max_size=2), min_size=n, max_size=n),
    st.lists(st.lists(names, max_size=3), min_size=n, max_size=n)))


@settings(derandomize=True, max_examples=300, deadline=None)
@given(graphs)
def test_same_order_as_networkx(graph):
    outputs, reads = graph
    assert dataflow_order(outputs, reads) == networkx_order(outputs, reads)


def test_a_cycle_has_no_order():
    assert dataflow_order([["a"], ["b"]], [["b"], ["a"]]) is None


def test_lowest_ready_position_first():
    # 2 feeds 0; 1 is free: 1 and 2 are ready, 1 goes first, then 2, then 0
    assert dataflow_order([["a"], ["b"], ["c"]], [["c"], [], []]) == [1, 2, 0]
