"""The output comparison behind every verified rewrite."""

from __future__ import annotations

import numpy as np

from atccheck.numerics import compare


def test_float16_outputs_may_move_by_an_ulp_or_two():
    ref = np.array([1000.0, 2.5, -3.0], dtype=np.float16)
    new = ref.copy()
    new[0] = np.nextafter(ref[0], np.float16(2000))  # one float16 ulp at 1000 is 0.5
    result = compare([{"y": ref}], [{"y": new}], atol=1e-5, rtol=1e-5)
    assert result.ok, result.reason


def test_a_real_difference_in_float16_is_still_caught():
    ref = np.array([1000.0], dtype=np.float16)
    new = np.array([1010.0], dtype=np.float16)
    assert not compare([{"y": ref}], [{"y": new}], atol=1e-5, rtol=1e-5).ok


def test_integer_outputs_must_match_exactly():
    ref = np.array([1, 2, 3], dtype=np.int64)
    assert not compare([{"y": ref}], [{"y": ref + np.array([0, 0, 1])}], atol=10.0, rtol=1.0).ok
