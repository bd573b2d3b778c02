"""The HTML report's layout in a real browser: what needs the script stays hidden without it, and a
picture wider than its panel is scaled to fit rather than cut at the panel's edge."""

from __future__ import annotations

import re

from onnx import helper

import atccheck
from atccheck.emit import render
from builders import FLOAT, make_model, tensor_input
from test_browser_html import browser  # noqa: F401  (the fixture: a headless Chromium)


def wide_model():
    """A custom op reading eight branches: a picture many boxes wide."""
    nodes = [helper.make_node("Relu", [f"x{i}"], [f"a{i}"], name=f"a_rather_long_relu_name_{i}") for i in range(8)]
    nodes.append(helper.make_node("FindMax", [f"a{i}" for i in range(8)], ["y"], name="custom"))
    inputs = [tensor_input(f"x{i}", [1, 3, 8, 8]) for i in range(8)]
    return make_model(nodes, inputs, [helper.make_tensor_value_info("y", FLOAT, None)], opset=13)


def test_controls_that_need_the_script_do_not_show_without_it(browser, tmp_path):  # noqa: F811
    html = render("html", [atccheck.check(wide_model(), soc="Ascend310P3")])
    page = tmp_path / "nojs.html"
    page.write_text(re.sub(r"<script>.*?</script>", "", html, flags=re.S), encoding="utf-8")
    browser.open(page.as_uri())
    shown = browser.js("[...document.querySelectorAll('#filters, button[data-copy]')].map(e => e.offsetHeight)")
    assert shown and all(height == 0 for height in shown), shown


def test_a_wide_picture_fits_its_panel(browser, tmp_path):  # noqa: F811
    page = tmp_path / "wide.html"
    page.write_text(render("html", [atccheck.check(wide_model(), soc="Ascend310P3")]), encoding="utf-8")
    browser.open(page.as_uri())
    browser.send("Emulation.setDeviceMetricsOverride", {"width": 420, "height": 900, "deviceScaleFactor": 1,
                                                        "mobile": False})
    edges = browser.js("[...document.querySelectorAll('figure svg.nb')].map(s => {const f = s.closest('figure');"
                       " return [s.getBoundingClientRect().right, f.getBoundingClientRect().right,"
                       " s.viewBox.baseVal.width];})")
    assert edges and any(width > 420 for _, _, width in edges), edges  # wider than the window
    assert all(svg <= figure + 1 for svg, figure, _ in edges), edges
