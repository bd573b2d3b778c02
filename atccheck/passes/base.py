"""The fix-pass contract and the pass registry.

A pass is a class in its own module under ``atccheck/passes/``, decorated with
:func:`register_pass`. It rewrites a model; it never reports findings (the rules do that,
before and after). It declares the findings it answers (``answers``: :class:`FixLink`
entries, the only place a rule and its fix are linked; see ``atccheck/fixlinks.py``) and
whether it is exact (``safe = True``) or changes numerics or assumptions (``safe = False``:
runs only with ``--unsafe-fixes``). ``run`` works on a copy the pipeline hands it (or on the model itself
when the pass declares ``copy_input = False``: it must then leave it unchanged) and returns
:class:`PassResult`; returning ``modified=False`` means "nothing to do here".

The pipeline (``atccheck/fixing/pipeline.py``) runs only the passes a finding calls for, in
``ORDER``, then verifies every step (``atccheck/fixing/verifier.py``): ``onnx.checker`` full
check, onnxruntime outputs against the model the pass was handed, and the rules again. A step
that fails is rolled back. A step is accepted when its outputs pass the comparison the pass
declares (``comparison``; by default every element within ``tolerance + rtol * |old|``, integer
and bool outputs exactly).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from atccheck.fixlinks import FixLink
from atccheck.numerics import Allclose, Cosine, Judge

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.context import CheckContext
    from atccheck.findings import Finding
    from atccheck.target import Target

NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

# Documented order of the pipeline stages (issue #3). A pass belongs to one stage.
ORDER = (
    "make-inputs-static",
    "simplify",
    "convert-opset",
    "single-opset-import",
    "decompose",
    "split-kernels",
    "repair",
)


__all__ = ["ORDER", "Allclose", "Cosine", "FixLink", "FixPass", "Note", "PassContext", "PassResult", "left", "register_pass",
           "registered_passes"]


@dataclass(frozen=True)
class PassContext:
    """What a pass may read: the target, the user's shapes, the findings that made it run."""

    target: "Target"
    input_shapes: Mapping[str, tuple[int, ...]]
    findings: Sequence["Finding"]
    unsafe: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)
    # The rules' view of the model as handed to the pass (inferred shapes, graph index), when the
    # pipeline has it; passes may read it instead of inferring shapes again. Read-only.
    context: "CheckContext | None" = None


class Note(str):
    """One line of what a pass did, for the report, and what the fix pipeline reads in it.

    A plain string is a note too. ``left`` marks a note that says why the pass left something
    as it was (``left as is: ...``): fix shows those beside a finding the pass did not remove.
    ``about`` names the nodes or inputs it speaks of, so the most specific notes come first.
    """

    left: bool
    about: tuple[str, ...]

    def __new__(cls, text: str, *, left: bool = False, about: tuple[str, ...] = ()) -> "Note":
        note = super().__new__(cls, text)
        note.left = left
        note.about = tuple(about)
        return note

    def __reduce__(self) -> tuple:
        return (_note, (str(self), self.left, self.about))


def _note(text: str, left: bool, about: tuple[str, ...]) -> Note:
    return Note(text, left=left, about=about)


def left(text: str, *about: str) -> Note:
    """A note saying why the pass left something as it was, about these nodes or inputs."""
    return Note(text, left=True, about=about)


@dataclass
class PassResult:
    model: "onnx.ModelProto"
    modified: bool
    notes: list[str] = field(default_factory=list)  # what it did ("3 Gelu nodes"): strings or Notes


class FixPass:
    """Base class of a fix pass."""

    name: ClassVar[str]  # verb phrase, kebab-case: "split-large-kernel-conv"
    stage: ClassVar[str]  # one of ORDER
    # The findings this pass answers: the one declaration that links rules and fixes. A finding
    # a named link matches names this pass as its fix; any link that matches makes the pass run.
    answers: ClassVar[tuple[FixLink, ...]] = ()
    safe: ClassVar[bool] = True
    # How fix judges the outputs of the pass's result against the model before it (atccheck.numerics).
    # By default Allclose(tolerance, rtol): the absolute error allowed, plus this fraction of the old
    # value's magnitude; a pass that changes numerics by design declares another (Cosine(0.99)).
    comparison: ClassVar[Judge]
    tolerance: ClassVar[float] = 1e-5
    rtol: ClassVar[float] = 1e-5
    # False: run() never changes the model it is handed (it builds its result apart), so the
    # pipeline hands it the current model itself instead of a copy (a copy of a 100 MB model
    # costs about 0.08 s).
    copy_input: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "comparison" not in cls.__dict__:
            cls.comparison = Allclose(cls.tolerance, cls.rtol)

    def answered(self, findings: Sequence["Finding"]) -> list["Finding"]:
        """The findings this pass answers (any of its links matches)."""
        return [f for f in findings if any(link.matches(f) for link in self.answers)]

    def wanted(self, findings: Sequence["Finding"]) -> bool:
        """Whether a finding present calls for this pass. A pass may narrow it further (int64-to-int32
        runs only where the finding's allowed types include int32)."""
        return any(link.matches(f) for f in findings for link in self.answers)

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        raise NotImplementedError


_PASSES: dict[str, type[FixPass]] = {}


def register_pass(cls: type[FixPass]) -> type[FixPass]:
    if not NAME_PATTERN.match(getattr(cls, "name", "")):
        raise ValueError(f"{cls.__name__}: pass name must be kebab-case")
    if getattr(cls, "stage", None) not in ORDER:
        raise ValueError(f"{cls.__name__}: stage must be one of {ORDER}")
    if not cls.__doc__:
        raise ValueError(f"{cls.__name__}: a pass documents itself in its docstring")
    for legacy in ("fixes", "suggested_for"):
        if legacy in cls.__dict__:
            raise ValueError(f"{cls.__name__}: '{legacy}' is gone; declare the findings the pass answers as "
                             "'answers = (FixLink(...), ...)' (docs/contributing.md, adding a pass)")
    if not all(isinstance(link, FixLink) for link in cls.answers):
        raise ValueError(f"{cls.__name__}: answers holds FixLink entries")
    known = _PASSES.get(cls.name)
    if known is not None and known is not cls:
        raise ValueError(f"duplicate pass name {cls.name}")
    _PASSES[cls.name] = cls
    return cls


def registered_passes() -> dict[str, type[FixPass]]:
    """Passes in pipeline order (stage, then name)."""
    return dict(sorted(_PASSES.items(), key=lambda kv: (ORDER.index(kv[1].stage), kv[0])))
