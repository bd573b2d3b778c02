"""The HTML report in a real browser: pictures have a size, the filters hide and show sections.

Drives headless Chromium (the distribution's package; `.ci/run` installs it) through the
DevTools protocol over ``--remote-debugging-pipe``, with the standard library only. Skips,
naming what is missing, only when no Chromium or Chrome binary can be found (set
``ATCCHECK_CHROMIUM`` to a binary to choose one).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import atccheck
from atccheck.emit import render
from builders import FLOAT, make_model, tensor_input

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
TIMEOUT = 60.0


def find_browser() -> str | None:
    chosen = os.environ.get("ATCCHECK_CHROMIUM")
    if chosen:
        return chosen
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """Headless Chromium with the DevTools protocol on fds 3 (commands) and 4 (replies)."""

    def __init__(self, binary: str, profile: Path, width: int = 1100, height: int = 1400) -> None:
        to_child, self._to_browser = os.pipe()
        self._from_browser, from_child = os.pipe()
        # the child's ends above fd 9, so moving them to fds 3 and 4 cannot overwrite one another
        # (the others are not inherited: Python opens file descriptors non-inheritable)
        for name in ("to_child", "from_child"):
            fd = locals()[name]
            high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
            os.close(fd)
            if name == "to_child":
                to_child = high
            else:
                from_child = high
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--remote-debugging-pipe",
                 f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"]

        def protocol_fds() -> None:  # in the child, before exec: the pipe ends become fds 3 and 4
            os.dup2(to_child, 3)
            os.dup2(from_child, 4)

        self.process = subprocess.Popen([binary, *flags], preexec_fn=protocol_fds, close_fds=False,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next = 0
        self.session: str | None = None

    def send(self, method: str, params: dict | None = None, session: bool = True) -> dict:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._next:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
            left = deadline - time.monotonic()
            if left <= 0 or self.process.poll() is not None:
                raise RuntimeError(f"no reply to {method} from the browser")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError("the browser closed the DevTools pipe")
                self._buffer += chunk

    def open(self, url: str) -> None:
        target = self.send("Target.createTarget", {"url": url}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        deadline = time.monotonic() + TIMEOUT
        # the new tab starts on about:blank, which is "complete" too: wait for this page
        loaded = f"document.readyState === 'complete' && location.href === {json.dumps(url)}"
        while not self.js(loaded):
            assert time.monotonic() < deadline, "the page did not finish loading"
            time.sleep(0.05)

    def js(self, expression: str):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def set_value(self, element_id: str, value: str, event: str) -> None:
        """Give a form field a value and fire the event a user's edit fires."""
        self.js(f"{{const e = document.getElementById({json.dumps(element_id)}); e.value = {json.dumps(value)}; "
                f"e.dispatchEvent(new Event({json.dumps(event)}));}}")

    def screenshot(self, path: Path) -> None:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.send("Browser.close", session=False)
        except RuntimeError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


@pytest.fixture
def browser(tmp_path):
    binary = find_browser()
    if binary is None:
        pytest.skip(f"missing resource: no Chromium or Chrome binary ({', '.join(BROWSERS)}) on PATH and "
                    "ATCCHECK_CHROMIUM unset; install one with 'apt-get install -y chromium'")
    instance = Browser(binary, tmp_path / "profile")
    try:
        yield instance
    finally:
        instance.close()


def mixed_model():
    """Errors (a custom op, Gelu, a symbolic batch) and a warning (ReduceMean without axes)."""
    from onnx import helper

    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="relu0"),
        helper.make_node("ReduceMean", ["a"], ["r"], name="mean0"),
        helper.make_node("FindMax", ["a"], ["b"], name='<img src=x onerror="alert(1)">'),
        helper.make_node("Gelu", ["b"], ["y"], name="gelu1"),
    ]
    outputs = [helper.make_tensor_value_info("y", FLOAT, None), helper.make_tensor_value_info("r", FLOAT, None)]
    return make_model(nodes, [tensor_input("x", ["N", 3, 8, 8])], outputs, opset=13)


SHOWN = "[...document.querySelectorAll('details.f')].filter(s => !s.hidden && s.offsetHeight > 0).length"


def test_report_renders_and_filters_in_a_browser(browser, tmp_path):
    report = atccheck.check(mixed_model(), soc="Ascend310P3", cann="8.0")
    page = tmp_path / "report.html"
    page.write_text(render("html", [report]), encoding="utf-8")
    browser.open(page.as_uri())

    # the script ran: the filter bar is shown; the node name is text, not an element
    assert browser.js("document.getElementById('filters').hidden") is False
    assert browser.js("document.scripts.length") == 1 and browser.js("document.images.length") == 0
    assert browser.js("[...document.querySelectorAll('svg.nb g')].some(g => g.dataset.node.startsWith('<img'))")
    sizes = browser.js("[...document.querySelectorAll('svg.nb')].map(s => "
                       "{const r = s.getBoundingClientRect(); return [r.width, r.height];})")
    assert len(sizes) >= 2 and all(w > 50 and h > 30 for w, h in sizes), sizes
    boxes = browser.js("[...document.querySelectorAll('svg.nb g.hl rect')].map(r => r.getBBox().width)")
    assert boxes and all(w > 0 for w in boxes)

    total = browser.js(SHOWN)
    errors = browser.js("document.querySelectorAll('details.f[data-sev=error]').length")
    assert total == browser.js("document.querySelectorAll('details.f').length") >= 3
    assert 0 < errors < total

    # severity: unticking "error" hides exactly the error sections
    browser.js("document.querySelector('input[data-sev=error]').click()")
    assert browser.js(SHOWN) == total - errors
    browser.js("document.querySelector('input[data-sev=error]').click()")
    assert browser.js(SHOWN) == total

    # rule: one rule's sections only
    browser.set_value("rule", "AC101", "change")
    assert browser.js(SHOWN) == browser.js("document.querySelectorAll('details.f[data-rule=AC101]').length") >= 1
    browser.set_value("rule", "", "change")

    # search: a node name finds its section, nonsense finds none and says so
    browser.set_value("q", "NOOP_WITH_EMPTY_AXES", "input")  # words of the warning's message only
    assert browser.js(SHOWN) == 1
    assert "1 of" in browser.js("document.getElementById('shown').textContent")
    browser.set_value("q", "no-such-thing", "input")
    assert browser.js(SHOWN) == 0
    assert browser.js("document.querySelector('.none-shown').hidden") is False
    browser.set_value("q", "", "input")
    assert browser.js(SHOWN) == total

    shot = tmp_path / "report.png"
    browser.screenshot(shot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
