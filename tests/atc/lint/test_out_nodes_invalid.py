"""out-nodes-invalid: --out_nodes split and looked up as ATC does."""

from __future__ import annotations

import pytest

from command_files_kit import BASE, lint_in, named


@pytest.mark.parametrize("value, code", [
    ("conv_image:0;out_image", "E10001"),  # mixed
    ("conv_image:0;", "E10001"),  # the trailing ';' adds an empty tensor entry
    ("conv_image:x", "E10001"),
    ("conv_image:0:1", "E10001"),
    ("conv_imag:0", "E10016"),
    ("conv_image:1", "E10003"),
    ("c_imag", "E19999"),
    ("out_image:0", "E10016"),  # a tensor written as node:index
])
def test_refused(tmp_path, value, code):
    found = named(lint_in(tmp_path, BASE + f' --out_nodes="{value}"'), "out-nodes-invalid")
    assert [f.atc_error for f in found] == [code]


@pytest.mark.parametrize("value", ["conv_image:0", "conv_image:0;Relu_0:0", "c_image;out_image", "image:0"])
def test_accepted(tmp_path, value):
    assert named(lint_in(tmp_path, BASE + f' --out_nodes="{value}"'), "out-nodes-invalid") == []


def test_tensor_given_as_node_gets_a_hint(tmp_path):
    (f,) = named(lint_in(tmp_path, BASE + ' --out_nodes="out_image:0"'), "out-nodes-invalid")
    assert "tensor" in f.hint
