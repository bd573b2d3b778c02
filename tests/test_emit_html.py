"""The HTML report's structure: a section per finding group, its nodes in its picture, escaping."""

from __future__ import annotations

import html.parser
import re
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from onnx import helper

import atccheck
from atccheck.emit import render
from atccheck.emit._grouping import message_groups
from atccheck.emit.graph_svg import GraphView, neighbourhood, render_svg
from atccheck.emit.html import page_name, site_files
from builders import FLOAT, make_model, tensor_input

VOID = {"meta", "br", "input", "img", "hr", "link", "source", "wbr", "col", "area", "base", "embed", "track"}
EVIL = '<script>alert("x")</script>&"'


class Element:
    def __init__(self, tag: str, attrs: dict[str, str | None], parent: "Element | None") -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.content: list[Element | str] = []  # text and child elements, in document order

    @property
    def children(self) -> list["Element"]:
        return [c for c in self.content if isinstance(c, Element)]

    def iter(self, tag: str | None = None):
        for child in self.children:
            if tag is None or child.tag == tag:
                yield child
            yield from child.iter(tag)

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def all_text(self) -> str:
        return "".join(c if isinstance(c, str) else c.all_text() for c in self.content)


class TreeBuilder(html.parser.HTMLParser):
    """A strict little DOM: every non-void element must be closed in order, or the test fails."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", {}, None)
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        element = Element(tag, dict(attrs), self.current)
        self.current.content.append(element)
        if tag not in VOID:
            self.current = element

    def handle_startendtag(self, tag, attrs):
        self.current.content.append(Element(tag, dict(attrs), self.current))

    def handle_endtag(self, tag):
        assert self.current.tag == tag, f"</{tag}> closes <{self.current.tag}>"
        self.current = self.current.parent

    def handle_data(self, data):
        self.current.content.append(data)


def parse(text: str) -> Element:
    builder = TreeBuilder()
    builder.feed(text)
    builder.close()
    assert builder.current is builder.root, "unclosed elements"
    return builder.root


def sections(doc: Element) -> list[Element]:
    return [d for d in doc.iter("details") if "f" in d.classes()]


def pictured(section: Element) -> dict[str, set[str]]:
    """data-node -> classes of the boxes in the section's pictures."""
    return {g.attrs["data-node"]: g.classes() for g in section.iter("g") if "data-node" in g.attrs}


def sample_model(evil_name: str = EVIL) -> onnx.ModelProto:
    """x -> Relu -> FindMax (custom, named with markup) -> Gelu -> y, opset 20, symbolic batch."""
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="relu0"),
        helper.make_node("FindMax", ["a"], ["b"], name=evil_name),
        helper.make_node("Gelu", ["b"], ["y"], name="gelu1"),
    ]
    return make_model(nodes, [tensor_input("x", ["N", 3, 8, 8])], [helper.make_tensor_value_info("y", FLOAT, None)],
                      opset=20)


@pytest.fixture
def report():
    return atccheck.check(sample_model(), soc="Ascend310P3", cann="8.0")


def test_every_finding_group_has_a_section_and_its_nodes_are_drawn(report):
    doc = parse(render("html", [report]))
    groups = message_groups(report.findings)
    found = sections(doc)
    assert len(found) == len(groups) >= 4
    for group, section in zip(groups, found):
        first = group[0]
        assert section.attrs["data-sev"] == first.severity.value
        assert section.attrs["data-rule"] == first.code
        assert "open" in section.attrs  # readable without JavaScript
        summary = next(section.iter("summary")).all_text()
        assert first.code in summary and first.name in summary and first.message in summary
        nodes = [f.location.node for f in group if f.location.node]
        boxes = pictured(section)
        if nodes:
            assert len(list(section.iter("svg"))) == 1
            for node in nodes[:3]:
                assert node in boxes and "hl" in boxes[node], (node, boxes)
            assert sum("hl" in c for c in boxes.values()) == len(set(nodes[:3]))
        elif isinstance(first.data.get("input"), str):  # a graph input's dims: the input and its readers
            assert boxes[first.data["input"]] == {"input", "hl"}
            assert sum("hl" in c for c in boxes.values()) == 1
        else:
            assert not list(section.iter("svg"))


def test_node_names_and_messages_are_escaped(report):
    text = render("html", [report])
    assert text.count("<script") == 1  # the page's own script, nothing from the model
    assert "alert(" not in text.split("<script>")[1]
    doc = parse(text)
    section = next(s for s in sections(doc) if EVIL in pictured(s))
    assert "hl" in pictured(section)[EVIL]
    assert EVIL in section.all_text()


def test_model_path_with_markup_is_escaped(tmp_path):
    model = sample_model("plain")
    path = tmp_path / "<img src=x onerror=alert(1)>.onnx"
    onnx.save(model, path)
    report = atccheck.check(str(path), soc="Ascend310P3")
    text = render("html", [report])
    assert "<img" not in text
    parse(text)


def test_header_overview_and_filters(report):
    doc = parse(render("html", [report], fail_on="error"))
    rows = list(next(t for t in doc.iter("table") if "targets" in t.classes()).iter("tr"))
    assert len(rows) == 2 and "Ascend310P3" in rows[1].all_text() and "fails --fail-on error" in rows[1].all_text()
    overview = next(d for d in doc.iter("details") if "overview" in d.classes()).all_text()
    assert "Relu" in overview and "FindMax" in overview and "Gelu" in overview
    assert "[N, 3, 8, 8]" in overview and "opset" in overview.lower()
    nav = next(n for n in doc.iter("nav"))
    assert "hidden" in nav.attrs  # shown by the script only
    options = [o.attrs["value"] for o in nav.iter("option")]
    assert options == ["", *sorted({f.code for f in report.findings})]


def test_atc_command_with_copy_button():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="r")]
    model = make_model(nodes, [tensor_input("x", [1, 3, 8, 8])], [helper.make_tensor_value_info("y", FLOAT, None)])
    report = atccheck.check(model, soc="Ascend310P3")
    assert report.atc_command is not None
    doc = parse(render("html", [report]))
    pre = next(p for p in doc.iter("pre") if p.attrs.get("id"))
    assert pre.all_text() == report.atc_command.line
    button = next(b for b in doc.iter("button"))
    assert button.attrs["data-copy"] == pre.attrs["id"] and "hidden" in button.attrs
    assert not sections(doc)


def test_several_chips_give_one_verdict_table(report):
    other = atccheck.check(sample_model(), soc="Ascend310", cann="8.0")
    doc = parse(render("html", [report, other]))
    table = next(t for t in doc.iter("table") if "targets" in t.classes())
    assert [next(r.iter("td")).all_text() for r in list(table.iter("tr"))[1:]] == ["Ascend310P3", "Ascend310"]
    assert len([s for s in doc.iter("section") if "target" in s.classes()]) == 2


def test_picture_without_context_reads_the_model_again(tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(sample_model("custom"), path)
    report = atccheck.check(str(path), soc="Ascend310P3")
    report.context = None
    doc = parse(render("html", [report]))
    assert any("custom" in pictured(s) for s in sections(doc))
    path.unlink()
    text = render("html", [report])
    assert "No picture: the model file is not at hand" in text


def view(edges: dict[str, list[str]], ops: dict[str, str] | None = None) -> GraphView:
    """Nodes named by their output; edges: node -> the nodes it reads."""
    names = list(edges)
    return GraphView(
        labels=names,
        ops=[(ops or {}).get(n, "Op") for n in names],
        reads=[tuple(edges[n]) for n in names],
        writes=[(n,) for n in names],
        tensor_labels={n: f"1\u00d7{i} float32" for i, n in enumerate(names)},
    )


def test_neighbourhood_hops_and_more_boxes():
    # chain a <- b <- c <- d, and c feeds ten consumers
    edges = {"in0": ["x"], "a": ["in0"], "b": ["a"], "c": ["b"], "d": ["c"]}
    edges.update({f"w{k}": ["c"] for k in range(10)})
    picture = neighbourhood(view(edges), [3], hops=2, fanout=4)  # around c
    names = {b.name for b in picture.boxes.values() if b.kind == "node"}
    assert {"a", "b", "c", "d"} <= names and "in0" not in names  # three hops up is too far
    more = [b for b in picture.boxes.values() if b.kind == "more"]
    assert len(more) == 1 and more[0].title == "+8 more"  # 11 consumers, 3 drawn
    assert [b.name for b in picture.highlighted] == ["c"]
    svg = render_svg(picture)
    assert svg.count('class="node hl"') == 1 and "+8 more" in svg
    assert "1\u00d72 float32" in svg  # edge b -> c labelled with b's shape


def test_graph_inputs_and_outputs_are_terminals():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="r")]
    model = make_model(nodes, [tensor_input("x", [1, 3])], [helper.make_tensor_value_info("y", FLOAT, [1, 3])])
    from atccheck.emit.html import FactsCache

    facts = FactsCache().get(atccheck.check(model, soc="Ascend310P3"))
    picture = neighbourhood(facts.views["main"], [0])
    kinds = sorted((b.kind, b.title) for b in picture.boxes.values())
    assert kinds == [("input", "x"), ("node", "Relu"), ("output", "y")]
    assert all(e.label == "1\u00d73 float32" for e in picture.edges)


def test_page_names():
    taken: set[str] = set()
    assert page_name("models/vision/resnet.onnx", taken, "models") == "vision_resnet.html"
    assert page_name("models/vision_resnet.onnx", taken, "models") == "vision_resnet-2.html"
    assert page_name("../x/<a>.onnx", taken) == "x_a.html"
    assert page_name("index.onnx", taken) == "index-2.html"


def test_directory_mode_writes_an_index_linking_every_model_page(tmp_path):
    folder = tmp_path / "models"
    (folder / "sub").mkdir(parents=True)
    onnx.save(sample_model("n1"), folder / "a.onnx")
    onnx.save(sample_model("n2"), folder / "sub" / "b.onnx")
    out = tmp_path / "report"
    code = "import sys; from atccheck.cli.main import main; sys.argv[0] = 'atccheck'; main()"
    result = subprocess.run([sys.executable, "-c", code, "check", str(folder), "--soc", "Ascend310P3", "-j", "2",
                             "--format", "html", "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["a.html", "index.html", "sub_b.html"]
    index = parse((out / "index.html").read_text())
    links = [a.attrs["href"] for a in index.iter("a")]
    assert links == ["a.html", "sub_b.html"]
    page = parse((out / "sub_b.html").read_text())
    # checked in a worker process (no context): the graph is read again to draw it
    assert any("n2" in pictured(s) for s in sections(page))


def test_site_files_with_an_html_destination(report):
    files = site_files([report], str(Path("out") / "all.html"))
    assert sorted(files) == [str(Path("out") / "all.html"), str(Path("out") / "test.html")]


def test_fix_report_shows_each_applied_pass_before_and_after(tmp_path):
    from atccheck.emit.html import render_fix

    x = tensor_input("x", [1, 4, 8])
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="pre"),
        helper.make_node("LayerNormalization", ["a", "g", "b"], ["n"], name="ln", axis=-1),
        helper.make_node("Relu", ["n"], ["y"], name="post"),
    ]
    import numpy as np

    from builders import init

    model = make_model(nodes, [x], [helper.make_tensor_value_info("y", FLOAT, [1, 4, 8])],
                       [init("g", np.ones(8, np.float32)), init("b", np.zeros(8, np.float32))], opset=17)
    path = tmp_path / "ln.onnx"
    onnx.save(model, path)
    outcome = atccheck.fix(str(path), soc="Ascend310", cann="6.0", output=str(tmp_path / "out.onnx"))
    doc = parse(render_fix(outcome))
    passes = {next(s.iter("h3")).all_text(): s for s in doc.iter("section") if "pass" in s.classes()}
    assert "decompose-layer-normalization" in passes
    figures = list(passes["decompose-layer-normalization"].iter("figure"))
    assert len(figures) == 2
    before, after = pictured(figures[0]), pictured(figures[1])
    assert "hl" in before["ln"] and "ln" not in after
    assert any("hl" in c for c in after.values()) and {"pre", "post"} <= set(after)
    text = doc.all_text()
    assert "verification: verified" in text and "max abs" in text
    assert re.search(r"decompose-layer-normalization\s*applied", text)


def test_with_the_steps_each_pass_is_drawn_against_the_model_it_changed(tmp_path):
    """LayerNormalization-17 on CANN 6.0: decompose-layer-normalization, then convert-opset moves
    the new nodes to a registered opset. convert-opset's pictures show those nodes, which neither
    the input nor (under their own findings) the written model can show."""
    import numpy as np

    from atccheck.emit.html import FixSteps, render_fix
    from builders import init

    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="pre"),
        helper.make_node("LayerNormalization", ["a", "g", "b"], ["n"], name="ln", axis=-1),
        helper.make_node("Relu", ["n"], ["y"], name="post"),
    ]
    model = make_model(nodes, [tensor_input("x", [1, 4, 8])], [helper.make_tensor_value_info("y", FLOAT, [1, 4, 8])],
                       [init("g", np.ones(8, np.float32)), init("b", np.zeros(8, np.float32))], opset=17)
    onnx.save(model, tmp_path / "ln.onnx")
    steps = FixSteps()
    outcome = atccheck.fix(str(tmp_path / "ln.onnx"), soc="Ascend310", cann="6.0", output=str(tmp_path / "out.onnx"),
                           on_step=steps)
    assert [p.name for p in outcome.applied] == ["decompose-layer-normalization", "convert-opset"]

    def convert_section(page: str):
        doc = parse(page)
        return next(s for s in doc.iter("section") if "pass" in s.classes()
                    and next(s.iter("h3")).all_text().startswith("convert-opset"))

    section = convert_section(render_fix(outcome, steps=steps))
    before = pictured(list(section.iter("figure"))[0])
    assert "hl" in before["ln/ReduceMean"]  # the decomposition's node, where convert-opset's finding was
    assert "after this pass" in section.all_text()
    without = convert_section(render_fix(outcome))  # drawn against the input, which has no such node
    assert "ln/ReduceMean" not in pictured(list(without.iter("figure"))[0])
    assert "after (the written model)" in without.all_text()


def test_a_finding_inside_a_subgraph_is_drawn_in_that_subgraph():
    out = helper.make_tensor_value_info
    then = helper.make_graph([helper.make_node("FindMax", ["a"], ["t"], name="inner")], "then", [],
                             [out("t", FLOAT, None)])
    other = helper.make_graph([helper.make_node("Identity", ["a"], ["e"], name="other")], "else", [],
                              [out("e", FLOAT, None)])
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="relu"),
        helper.make_node("If", ["c"], ["y"], name="if0", then_branch=then, else_branch=other),
    ]
    model = make_model(nodes, [tensor_input("x", [1, 4]), tensor_input("c", [], onnx.TensorProto.BOOL)],
                       [out("y", FLOAT, None)])
    report = atccheck.check(model, soc="Ascend310P3")
    inner = [f for f in report.findings if f.location.node == "inner"]
    assert inner and inner[0].location.graph != "main"
    doc = parse(render("html", [report]))
    (section,) = [s for s in sections(doc) if "inner" in pictured(s) and s.attrs["data-rule"] == inner[0].code]
    boxes = pictured(section)
    assert "hl" in boxes["inner"] and "input" in boxes["a"]  # the outer value it reads is an input there
    assert "relu" not in boxes and "if0" not in boxes
    assert inner[0].location.graph in next(section.iter("figcaption")).all_text()


def test_the_page_is_reproducible_and_lists_models_that_could_not_be_checked(report):
    from atccheck.batch import UncheckedModel

    unchecked = [UncheckedModel("models/<broken>.onnx", "not an ONNX model")]
    first = render("html", [report], unchecked=unchecked)
    assert first == render("html", [report], unchecked=unchecked)  # no timestamps, no random ids
    items = [li.all_text() for ul in parse(first).iter("ul") if "unchecked" in ul.classes() for li in ul.iter("li")]
    assert items == ["models/<broken>.onnx: not an ONNX model"]
    only = parse(render("html", [], unchecked=unchecked))  # nothing could be checked: still a page
    assert "could not be checked" in only.all_text() and not sections(only)


def test_symbolic_dim_names_are_escaped_and_marked():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="r")]
    model = make_model(nodes, [tensor_input("x", ["<zz>&amp;", 3])], [helper.make_tensor_value_info("y", FLOAT, None)])
    text = render("html", [atccheck.check(model, soc="Ascend310P3")])
    assert "[<span class=\"sym\">&lt;zz&gt;&amp;amp;</span>, 3]" in text
    assert "<zz>" not in text


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    code = "import sys; from atccheck.cli.main import main; sys.argv[0] = 'atccheck'; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def test_check_cli_writes_one_page_for_one_model(tmp_path):
    onnx.save(sample_model("n1"), tmp_path / "m.onnx")
    result = run_cli("check", "m.onnx", "--soc", "Ascend310P3", "--soc", "Ascend310", "--format", "html",
                     "--format", "text", "-o", "out.html", "-o", "-", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx", "out.html"]
    doc = parse((tmp_path / "out.html").read_text())
    assert len([s for s in doc.iter("section") if "target" in s.classes()]) == 2
    assert "error" in result.stdout  # the text report still goes to stdout


def test_fix_cli_writes_the_report(tmp_path):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="r")]
    model = make_model(nodes, [tensor_input("x", ["N", 4])], [helper.make_tensor_value_info("y", FLOAT, None)])
    onnx.save(model, tmp_path / "m.onnx")
    result = run_cli("fix", "m.onnx", "--soc", "Ascend310", "--input-shape", "x:2,4", "--report", "fix.html",
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    doc = parse((tmp_path / "fix.html").read_text())
    assert "make-inputs-static" in {next(s.iter("h3")).all_text() for s in doc.iter("section") if "pass" in s.classes()}
    assert (tmp_path / "m.atc.onnx").exists()
