"""Tables read on first use hold the same records as every table built up front."""

from __future__ import annotations

from atccheck.tables import TABLE_FILES, Tables, loader, tables


def test_a_check_sized_question_reads_only_the_tables_it_needs():
    docs = loader.LazyDocs()
    t = Tables(docs)
    assert t.registry("8.0").lookup("", "Relu") is not None
    assert sorted(docs._read) == ["registry.json"]
    assert sorted(docs) == sorted(TABLE_FILES) and len(docs) == len(TABLE_FILES)


def test_every_record_equals_the_eager_build():
    docs = loader.read_all()
    lazy = Tables(loader.LazyDocs())
    eager_regs = loader.load_registrations(docs)
    for profile, regs in eager_regs.items():
        assert lazy.registry(profile)._by_key == regs
    assert lazy.registry("no-such-profile")._by_key == {}
    eager_kernels = loader.load_kernels(docs)
    for (release, family, op), kernel in eager_kernels.items():
        assert lazy.kernel(release, family, op) == kernel
        assert lazy.has_kernel_facts(release, family)
    assert not lazy.has_kernel_facts("no-such-release", "no-such-family")
    assert lazy.kernel("no-such-release", "x", "y") is None
    assert lazy.profiles == loader.load_profiles(docs)
    assert lazy.socs == loader.load_socs(docs)
    assert lazy.op_specs == loader.load_op_specs(docs)
    assert lazy.attr_limits == loader.load_attr_limits(docs)
    assert lazy.op_facts == loader.load_op_facts(docs)
    assert lazy.plugin_refusals == loader.load_plugin_refusals(docs)
    assert lazy.limits == loader.load_limits(docs)
    assert lazy.atc_errors == loader.load_atc_errors(docs)
    assert lazy.atc_options == loader.load_atc_options(docs)
    assert lazy.atc_options_extra == loader.load_atc_options_extra(docs)
    assert lazy.native_types == frozenset(docs["registry.json"]["native_types"])
    assert lazy.subgraph_ops == frozenset(docs["registry.json"]["subgraph_ops"])


def test_the_installation_tables_are_lazy():
    assert isinstance(tables().docs, loader.LazyDocs)
