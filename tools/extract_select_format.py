#!/usr/bin/env python3
"""Evaluate the TBE ``op_select_format`` functions of the CANN sources per SoC, for curation.

Usage::

    python tools/extract_select_format.py --out /tmp/select_format.json [--op Add] [--release cann-8.1.RC1]

This is a research aid, not part of atccheck: it reads the local mirrors of the CANN 8.1.RC1
package and of the 2022 canndev tree (``/work/.mirror/...``), imports each op's TBE
implementation with the TBE/TVM runtime replaced by stand-ins, and calls its
``op_select_format`` once per candidate input dtype, per SoC, per input shape case. Its output
is raw material that a person checks against the code before it goes into
``op_tables/curated/op_select_format.json``; neither the generator nor the tests run it.

How the SoC is answered (the facts the functions branch on):

* ``get_soc_spec(key)``: the SoC's platform ini of the 8.1.RC1 package
  (``aarch64-linux/data/platform_config/<SoC>.ini``).
* ``intrinsic_check_support("Intrinsic_x", dtype)``: that ini's ``[AICoreintrinsicDtypeMap]``.
* ``api_check_support("tbe.dsl.x", dtype)``: the release's own ``DSL_CHECK_SUPPORT_MAP``
  (``tbe/dsl/compute/util.py``), keyed by short SoC version.
* ``api_check_support("tik.x", dtype)``: the 8.1 package's ``ONLY_TIK_API_MAP`` and
  ``TRANS_TIK_API_TO_INSTR_MAP``, then the intrinsic map, as ``tik_api_check_support`` does.

Anything else the function touches is a stand-in: using its value in a decision (a truth test,
a comparison, iteration) stops the evaluation with "unresolved: <name>", and the case is
recorded as unknown with that name. The 2022 tree has no platform inis or TIK maps: its
intrinsic and TIK answers come from the 8.1 package's files for the same SoC (hardware facts),
which the output says.
"""

from __future__ import annotations

import argparse
import ast
import configparser
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import io
import json
import re
import subprocess
import sys
import tempfile
import types
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

MIRRORS = Path("/work/.mirror")
CANN81 = MIRRORS / "leideng+CANN-8.1.RC1" / "repo"
CANN81_COMMIT = "551ed27c"
CANNDEV = MIRRORS / "dengguojie+vue-element-admin" / "repo"
CANNDEV_COMMIT = "7d77ce32d"
TOOLKIT = "Ascend/ascend-toolkit/8.1.RC1"
TBE81 = f"{TOOLKIT}/opp/built-in/op_impl/ai_core/tbe"
SITE81 = f"{TOOLKIT}/python/site-packages"
INI81 = f"{TOOLKIT}/aarch64-linux/data/platform_config"
TBE22 = "ops/built-in/tbe"

RELEASES = {
    "cann-8.1.RC1": {
        "repo": CANN81, "commit": CANN81_COMMIT, "cite": "leideng/CANN-8.1.RC1", "impl": f"{TBE81}/impl",
        "config": f"{TBE81}/config/{{soc}}/aic-{{soc}}-ops-info.json", "dsl_util": (CANN81, CANN81_COMMIT,
                                                                                  f"{SITE81}/tbe/dsl/compute/util.py"),
    },
    "canndev-2022-06": {
        "repo": CANNDEV, "commit": CANNDEV_COMMIT, "cite": "dengguojie/vue-element-admin", "impl": f"{TBE22}/impl",
        "config": f"{TBE22}/op_info_cfg/ai_core/{{soc}}/aic-{{soc}}-ops-info.ini",
        "dsl_util": (CANNDEV, CANNDEV_COMMIT, "auto_schedule/python/tbe/dsl/compute/util.py"),
    },
}

# The --soc_version each kernel family is evaluated at (one chip per family; the functions
# branch on the short SoC version, which every chip of a family shares, and on intrinsics).
FAMILY_SOCS = {
    "ascend310": ["Ascend310"],
    "ascend310p": ["Ascend310P3", "Ascend310P1"],
    "ascend310b": ["Ascend310B1", "Ascend310B4"],
    "ascend910": ["Ascend910A", "Ascend910ProB"],
    "ascend910b": ["Ascend910B3", "Ascend910B1"],
    "ascend910_93": ["Ascend910_9392", "Ascend910_9362"],
}
FAMILIES = {
    "cann-8.1.RC1": ["ascend310", "ascend310b", "ascend310p", "ascend910", "ascend910_93", "ascend910b"],
    "canndev-2022-06": ["ascend310", "ascend310b", "ascend310p", "ascend910", "ascend910b"],
}

CANDIDATES = ["float16", "float32", "bfloat16", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32",
              "int64", "uint64", "bool"]
# op_select_format spells these its own way
SPELLING = {"float": "float32", "double": "float64", "bf16": "bfloat16", "half": "float16"}


def git_show(repo: Path, commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], check=True, capture_output=True,
                          text=True).stdout


def git_extract(repo: Path, commit: str, paths: list[str], dest: Path) -> None:
    """Write the files under PATHS at COMMIT into DEST (files the mirror lacks are skipped)."""
    names = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", commit, "--", *paths],
                           check=True, capture_output=True, text=True).stdout.split("\n")
    wanted = [n for n in names if n.endswith((".py", ".json", ".ini"))]
    batch = "".join(f"{commit}:{n}\n" for n in wanted)
    out = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], input=batch.encode(), check=True,
                         capture_output=True).stdout
    pos = 0
    for name in wanted:
        header_end = out.index(b"\n", pos)
        header = out[pos:header_end].decode()
        pos = header_end + 1
        if header.endswith("missing"):
            continue
        size = int(header.split()[2])
        data = out[pos:pos + size]
        pos += size + 1
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


# --------------------------------------------------------------------------- platform facts


class Unresolved(Exception):
    """The function used a value this tool does not model."""


class ImplRaised(Exception):
    """The function raised through the TBE error manager (the op rejects this case)."""


def literal_dicts(source: str, names: Iterable[str] | None, constants: dict[str, Any]) -> dict[str, Any]:
    """Module-level literal assignments NAMES (None: all) of SOURCE, with CONSTANTS standing for names used."""
    tree = ast.parse(source)
    found: dict[str, Any] = {}
    env = dict(constants)
    wanted = set(names) if names is not None else None

    def value(node: ast.AST) -> Any:
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            raise KeyError(node.id)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [value(e) for e in node.elts]
        if isinstance(node, ast.Dict):
            out = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    out.update(value(v))
                else:
                    out[value(k)] = value(v)
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return value(node.left) + value(node.right)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
            out = {}
            for a in node.args:
                out.update(value(a))
            for kw in node.keywords:
                out[kw.arg] = value(kw.value)
            return out
        raise KeyError(ast.dump(node)[:60])

    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            try:
                env[name] = value(node.value)
            except KeyError:
                continue
            if wanted is None or name in wanted:
                found[name] = env[name]
    return found


PLATFORM_CONSTANTS = {
    "ASCEND_310": "Ascend310", "ASCEND_310B": "Ascend310B", "AS31XM1": "AS31XM1", "ASCEND_610": "Ascend610",
    "ASCEND_610LITE": "Ascend610Lite", "ASCEND_615": "Ascend615", "BS9SX2A": "BS9SX2A", "MC61AM21A": "MC61AM21A",
    "BS9SX1A": "BS9SX1A", "ASCEND_310P": "Ascend310P", "ASCEND_910": "Ascend910", "HI3796CV300CS": "Hi3796CV300CS",
    "HI3796CV300ES": "Hi3796CV300ES", "SD3403": "SD3403", "ASCEND_910B": "Ascend910B", "ASCEND_910_93": "Ascend910_93",
    "ASCEND_910_95": "Ascend910_95", "ASCEND_SHISI": "smallhisi", "ASCEND_031": "Ascend031", "ASCEND_035": "Ascend035",
    "ASCEND_910H": "Ascend910H", "ASCEND_910M": "Ascend910M", "ASCEND_910P": "Ascend910P", "ASCEND_SD": "SD3403",
    "ASCEND_920A": "Ascend920A",
    "AIC_310P": "Ascend310PAiCore", "VEC_310P": "Ascend310PVectorCore", "AIC_610": "Ascend610AiCore",
    "VEC_610": "Ascend610VectorCore", "HI3796CV300ESAIC": "Hi3796CV300ESAiCore",
    "HI3796CV300CSAIC": "Hi3796CV300CSAiCore", "SD3403AIC": "SD3403AiCore", "ASCEND_SD_AIC": "SD3403AiCore",
    "SOC_VERSION": "SOC_VERSION", "SHORT_SOC_VERSION": "SHORT_SOC_VERSION", "FULL_SOC_VERSION": "FULL_SOC_VERSION",
    "AICORE_TYPE": "AICORE_TYPE", "CORE_NUM": "CORE_NUM", "UB_SIZE": "UB_SIZE", "L2_SIZE": "L2_SIZE",
    "L1_SIZE": "L1_SIZE", "CUBE_SIZE": "CUBE_SIZE", "L0A_SIZE": "L0A_SIZE", "L0B_SIZE": "L0B_SIZE",
    "L0C_SIZE": "L0C_SIZE", "SMASK_SIZE": "SMASK_SIZE", "UNZIP": "UNZIP", "CUBE_VECTOR_SPLIT": "CUBE_VECTOR_SPLIT",
    "COMPILER_ARCH": "COMPILER_ARCH", "L1_FUSION": "L1_FUSION", "L2_FUSION": "L2_FUSION",
}


class Platform:
    """The answers of one --soc_version, read from the 8.1 package and the release's DSL map."""

    def __init__(self, soc_version: str, ini_text: str, dsl: dict, tik: dict, trans: dict,
                 constants: dict[str, Any]) -> None:
        parser = configparser.ConfigParser(strict=False, interpolation=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]
        parser.read_string(ini_text)
        self.soc_version = soc_version
        self.ini = {s: dict(parser[s]) for s in parser.sections()}
        self.short = self.ini["version"]["Short_SoC_version"]
        self.intrinsics: dict[str, list[str]] = {}
        for line in self.ini.get("AICoreintrinsicDtypeMap", {}).values():
            name, _, dtypes = line.partition("|")
            self.intrinsics[name] = dtypes.split(",") if dtypes else []
        self.dsl = dsl
        self.tik = tik
        self.trans = trans
        self.constants = constants  # literal names of tbe/common/platform (CUBE_MKN, scope names, ...)
        self.touched: dict[str, Any] = {}

    def get_soc_spec(self, key: str) -> Any:
        value = self._soc_spec(key)
        if not isinstance(value, Stub):
            self.touched[f"get_soc_spec({key})"] = value
        return value

    def _soc_spec(self, key: str) -> Any:
        version = self.ini["version"]
        soc = self.ini["SoCInfo"]
        core = self.ini["AICoreSpec"]
        table = {
            "SOC_VERSION": version["SoC_version"], "FULL_SOC_VERSION": version["SoC_version"],
            "SHORT_SOC_VERSION": self.short, "AICORE_TYPE": "AiCore", "CORE_NUM": int(soc["ai_core_cnt"]),
            "UB_SIZE": int(core["ub_size"]), "L1_SIZE": int(core["l1_size"]), "L0A_SIZE": int(core["l0_a_size"]),
            "L0B_SIZE": int(core["l0_b_size"]), "L0C_SIZE": int(core["l0_c_size"]), "L2_SIZE": int(soc["l2_size"]),
            "CUBE_VECTOR_SPLIT": soc.get("cube_vector_combine") == "split",
            "Compiler_aicpu_support_os": version.get("Compiler_aicpu_support_os"),
            "AIC_VERSION": version.get("AIC_version"), "ARCH_TYPE": version.get("Arch_type"),
            # platform_info.py reads it as a bool; only the inis of zN chips set l0a_layout_zN=1
            "L0A_LAYOUT_IS_zN": core.get("l0a_layout_zN", "0") == "1",
        }
        if key in table:
            return table[key]
        for section in ("AICoreSpec", "SoCInfo", "version"):  # keys spelled as in the ini (ubblock_size, ...)
            value = self.ini.get(section, {}).get(key)
            if value is not None:
                return int(value) if value.isdigit() else value
        return Stub(f"get_soc_spec({key})")

    def intrinsic_check_support(self, name: str, dtype: str = "") -> bool:
        found = name in self.intrinsics and (dtype in ("", None) or dtype in self.intrinsics[name])
        self.touched[f"intrinsic_check_support({name}, {dtype!r})"] = found
        return found

    def api_check_support(self, api: str, dtype: str = "") -> bool:
        found = self._api(api, dtype)
        self.touched[f"api_check_support({api}, {dtype!r})"] = found
        return found

    def _api(self, api: str, dtype: str = "") -> bool:
        if api.startswith(("tbe.dsl.", "te.lang.cce.")):
            name = api.split(".")[-1]
            name = {"sum": "reduce_sum", "round_to": "clip", "round_d": "round_half_up"}.get(name, name)
            entry = self.dsl.get(name)
            if entry is None:
                return False
            short = "smallhisi" if self.short in ("Hi3796CV300CS", "Hi3796CV300ES", "SD3403") else self.short
            dtypes = entry.get(short, entry.get("AllSoc"))
            if dtypes is None:
                return False
            return dtype in (None, "") or dtype in dtypes
        if api.startswith("tik."):
            instr = api[4:]
            total = self.short + "AiCore"
            if instr in self.tik:
                if total in self.tik[instr]:
                    return dtype == "" or dtype in self.tik[instr][total]
                return False
            instr = self.trans.get(instr, instr)
            if instr.startswith("vec_"):
                instr = "v" + instr[4:]
            if instr.startswith("h_"):
                raise Unresolved(f"api_check_support({api})")
            return self.intrinsic_check_support("Intrinsic_" + instr, dtype)
        return False


# --------------------------------------------------------------------------- stand-ins


class Stub:
    """A value of the TBE runtime this tool does not model: usable as a decorator or callee, never as data."""

    def __init__(self, path: str) -> None:
        object.__setattr__(self, "_path", path)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Stub(f"{self._path}.{name}")

    def __setattr__(self, name: str, value: Any) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and (inspect.isfunction(args[0]) or inspect.isclass(args[0])):
            return args[0]
        if "error" in self._path.lower() or "raise" in self._path.lower():
            raise ImplRaised(self._path)
        return Stub(f"{self._path}()")

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise Unresolved(self._path)

    __bool__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse  # type: ignore[assignment]
    __iter__ = __len__ = __int__ = __index__ = __float__ = __contains__ = __getitem__ = _refuse  # type: ignore[assignment]
    __hash__ = _refuse  # type: ignore[assignment]

    def _arith(self, *args: Any) -> Any:
        return Stub(f"({self._path} op)")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __floordiv__ = __truediv__ = _arith
    __mod__ = __neg__ = __and__ = __or__ = _arith

    def __mro_entries__(self, bases: tuple) -> tuple:
        return (object,)

    def __instancecheck__(self, obj: Any) -> bool:
        return False  # plain Python values are never TBE/TVM objects

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> bool:
        return False


OVERRIDDEN: set[str] = set()  # stand-in modules that carry modelled functions


class StubModule(types.ModuleType):
    def __init__(self, name: str, overrides: dict[str, Any]) -> None:
        super().__init__(name)
        self.__path__: list[str] = []
        self.__dict__.update(overrides)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        full = f"{self.__name__}.{name}"
        sub = sys.modules.get(full)
        if sub is not None:
            return sub
        if full in OVERRIDDEN or any(k.startswith(full + ".") for k in OVERRIDDEN):
            return importlib.import_module(full)
        return Stub(full)


STUB_ROOTS = ("tbe", "te", "tvm", "topi", "decorator", "tikcpp", "op_test_frame", "auto_schedule", "sympy")


class Sandbox(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``impl.*`` from an extracted tree and stands in for the TBE runtime."""

    def __init__(self, impl_root: Path, platform: Platform, real: dict[str, str]) -> None:
        self.impl_root = impl_root
        self.platform = platform
        self.real = real  # module name -> source of a pure-Python runtime module to run as is
        p = platform
        funcs = {"get_soc_spec": p.get_soc_spec, "api_check_support": p.api_check_support,
                 "intrinsic_check_support": p.intrinsic_check_support,
                 "set_current_compile_soc_info": lambda *a, **k: None, "get_block_size": lambda: 32,
                 "dsl_check_support": lambda api, dtype=None: p.api_check_support(api, dtype or "")}
        plat = {**p.constants, **PLATFORM_CONSTANTS, **funcs}
        self.overrides = {
            "tbe.common.platform": plat, "tbe.common.platform.platform_info": plat, "te.platform": plat,
            "te.platform.cce_conf": plat, "tbe.common.platform.platform_info_": plat,
            "tbe.dsl.compute.util": {"dsl_check_support": funcs["dsl_check_support"]},
            # no op context: ATC run without --op_select_implmode / --optypelist_for_implmode
            "tbe.common.context": {"get_context": lambda: None},
            "tbe.common.context.op_context": {"get_context": lambda: None},
            "te.platform.fusion_manager": {},
        }
        OVERRIDDEN.clear()
        OVERRIDDEN.update(self.overrides)
        OVERRIDDEN.update(self.real)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        root = fullname.split(".")[0]
        if fullname in self.real or root in STUB_ROOTS:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        if fullname == "impl" or fullname.startswith("impl."):
            rel = fullname.split(".")[1:]
            base = self.impl_root.joinpath(*rel)
            if base.is_dir():
                return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
            if base.with_suffix(".py").is_file():
                return importlib.machinery.ModuleSpec(fullname, self, origin=str(base.with_suffix(".py")))
            return None
        return None

    def create_module(self, spec: Any) -> Any:
        name = spec.name
        if name in self.real:
            return None
        root = name.split(".")[0]
        if root in STUB_ROOTS:
            return StubModule(name, self.overrides.get(name, {}))
        return None

    def exec_module(self, module: Any) -> None:
        name = module.__name__
        if isinstance(module, StubModule):
            return
        if name in self.real:
            module.__path__ = []
            exec(compile(self.real[name], name, "exec"), module.__dict__)
            return
        rel = name.split(".")[1:]
        base = self.impl_root.joinpath(*rel)
        if base.is_dir():
            module.__path__ = [str(base)]
            init = base / "__init__.py"
            if name not in ("impl", "impl.dynamic") and init.is_file():
                # impl's and impl.dynamic's __init__ import every op; smaller packages run theirs
                exec(compile(init.read_text(encoding="utf-8"), str(init), "exec"), module.__dict__)
            return
        source = base.with_suffix(".py").read_text(encoding="utf-8")
        module.__file__ = str(base.with_suffix(".py"))
        exec(compile(source, str(base.with_suffix(".py")), "exec"), module.__dict__)


@contextlib.contextmanager
def sandbox(impl_root: Path, platform: Platform, real: dict[str, str]) -> Iterator[Sandbox]:
    saved = {k: v for k, v in sys.modules.items() if k.split(".")[0] in ("impl",) + STUB_ROOTS}
    for k in saved:
        del sys.modules[k]
    import collections
    import collections.abc
    for old in ("Iterable", "Mapping", "Sequence", "Callable"):  # the 2022 tree imports these from collections
        if not hasattr(collections, old):
            setattr(collections, old, getattr(collections.abc, old))
    box = Sandbox(impl_root, platform, real)
    sys.meta_path.insert(0, box)
    try:
        yield box
    finally:
        sys.meta_path.remove(box)
        for k in [k for k in sys.modules if k.split(".")[0] in ("impl",) + STUB_ROOTS or k in real]:
            del sys.modules[k]
        sys.modules.update(saved)


# --------------------------------------------------------------------------- op call specs

def tensor(shape: list[int], dtype: str, fmt: str) -> dict:
    dyn = any(d < 0 for d in shape)
    return {"shape": list(shape), "ori_shape": list(shape), "format": fmt, "ori_format": fmt, "dtype": dtype,
            "ori_dtype": dtype, "range": [(1, None) if d < 0 else (d, d) for d in shape] if dyn else
            [(d, d) for d in shape], "param_name": None}


# For each op: the cases to evaluate. A case names its shapes, format, which positional
# arguments take the dtype under test ("x") and which are fixed, and the attributes.
# The answer read is the dtype column of input0 (the data input).
SHAPES = {  # label -> (shape, format); "dynamic" in a label marks an unknown dim
    "static 4-D NCHW": ([2, 16, 8, 8], "NCHW"),
    "static 4-D NCHW unaligned": ([1, 3, 7, 5], "NCHW"),
    "static 2-D ND": ([32, 64], "ND"),
    "static 3-D ND unaligned": ([2, 5, 7], "ND"),
    "static 1-D ND": ([7], "ND"),
    "dynamic 4-D NCHW": ([-1, 16, 8, 8], "NCHW"),
    "dynamic 2-D ND": ([-1, 64], "ND"),
}


def cases_for(op: str) -> list[dict]:
    """The input cases an op's op_select_format is called with (ONNX-like: NCHW for 4-D, ND otherwise)."""
    out: list[dict] = []

    def each(labels: Iterable[str], make: Any) -> list[dict]:
        return [{"label": label, **make(*SHAPES[label])} for label in labels]

    every = list(SHAPES)
    four = ["static 4-D NCHW", "static 4-D NCHW unaligned", "dynamic 4-D NCHW"]
    if op in ("Add", "Mul", "RealDiv"):
        out = each(every, lambda s, f: {"args": [("x", s, f), ("x", s, f), ("y", s, f)], "kwargs": {}})
        # a broadcast scalar as the second input
        out += each(["static 4-D NCHW", "dynamic 4-D NCHW"], lambda s, f: {
            "args": [("x", s, f), ("x", [1], "ND"), ("y", s, f)], "kwargs": {}})
        for case in out[-2:]:
            case["label"] += " + broadcast [1]"
    elif op == "PRelu":
        out = each(four, lambda s, f: {"args": [("x", s, f), ("x", [s[1]], "ND"), ("y", s, f)], "kwargs": {}})
    elif op in ("Cos", "Reciprocal"):
        out = each(every, lambda s, f: {"args": [("x", s, f), ("y", s, f)], "kwargs": {}})
    elif op == "SquareSumV1":
        out = each(every, lambda s, f: {"args": [("x", s, f), ("y", s[:-1] + [1], f)],
                                        "kwargs": {"axis": [-1], "keep_dims": True}})
    elif op == "SoftmaxV2":
        out = each([k for k in every if "1-D" not in k], lambda s, f: {"args": [("x", s, f), ("y", s, f)],
                                                                       "kwargs": {"axes": [-1]}})
    elif op == "ConcatD":
        out = each(every, lambda s, f: {"args": [("xlist", s, f), ("y", s, f)], "kwargs": {"concat_dim": 0}})
    elif op == "LayerNorm":
        out = each(["static 3-D ND unaligned", "static 2-D ND", "dynamic 2-D ND"], lambda s, f: {
            "args": [("x", s, f), ("x", s[-1:], "ND"), ("x", s[-1:], "ND"), ("y", s, f), ("y", s[:-1] + [1], f),
                     ("y", s[:-1] + [1], f)],
            "kwargs": {"begin_norm_axis": -1, "begin_params_axis": -1}})
    elif op == "MatMulV2":
        out = [{"label": label, "args": [("x", a, "ND"), ("x", b, "ND"), None, None, ("y", [a[0], b[1]], "ND")],
                "kwargs": {"transpose_x1": False, "transpose_x2": False}}
               for label, a, b in (("static 2-D ND", [32, 64], [64, 16]), ("static 2-D ND unaligned", [5, 7], [7, 3]),
                                   ("dynamic 2-D ND", [-1, 64], [64, 16]))]
    elif op in ("BatchMatMul", "BatchMatMulV2"):
        for label, a, b in (("static 3-D ND", [4, 32, 64], [4, 64, 16]), ("static 3-D ND unaligned", [2, 5, 7], [2, 7, 3]),
                            ("dynamic 3-D ND", [-1, 32, 64], [4, 64, 16])):
            args = [("x", a, "ND"), ("x", b, "ND")] + ([None, None] if op == "BatchMatMulV2" else [None])
            args.append(("y", [a[0], a[1], b[2]], "ND"))
            out.append({"label": label, "args": args, "kwargs": {"adj_x1": False, "adj_x2": False}})
    elif op == "SpaceToDepth":
        out = each(["static 4-D NCHW", "dynamic 4-D NCHW"], lambda s, f: {
            "args": [("x", s, f), None, ("y", [s[0], s[1] * 4, 4, 4], f)],
            "kwargs": {"block_size": 2, "data_format": "NCHW"}})
    elif op in ("PadV3", "PadV2"):
        out = each(four, lambda s, f: {
            "args": [("x", s, f), ("int64", [8], "ND"), ("x", [1], "ND"), ("y", s, f)],
            "kwargs": {"mode": "constant", "paddings_contiguous": True} if op == "PadV3" else {}})
    elif op == "Slice":
        out = each(four, lambda s, f: {"args": [("x", s, f), ("int64", [4], "ND"), ("int64", [4], "ND"),
                                                ("y", s, f)], "kwargs": {}})
    elif op == "StridedSliceD":
        out = each(["static 4-D NCHW", "static 4-D NCHW unaligned", "dynamic 4-D NCHW"], lambda s, f: {
            "args": [("x", s, f), ("y", s, f)],
            "kwargs": {"begin": [0, 0, 0, 0], "end": list(s), "strides": [1, 1, 1, 1], "begin_mask": 0,
                       "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0}})
    elif op == "Resize":
        out = each(four, lambda s, f: {"args": [("x", s, f), ("float32", [0], "ND"), ("float32", [4], "ND"),
                                                ("int64", [4], "ND"), ("y", [s[0], s[1], 16, 16], f)],
                                       "kwargs": {"mode": "nearest"}})
    elif op == "Conv2D":
        out = each(["static 4-D NCHW", "static 4-D NCHW unaligned", "dynamic 4-D NCHW"], lambda s, f: {
            "args": [("x", s, f), ("x", [32, s[1], 3, 3], "NCHW"), None, None, ("y", [s[0], 32] + s[2:], f)],
            "kwargs": {"strides": [1, 1, 1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1, 1, 1], "groups": 1,
                       "data_format": "NCHW", "offset_x": 0}})
    elif op == "MaxPool3D":
        for label, shape in (("static 5-D NCDHW", [2, 16, 4, 8, 8]), ("dynamic 5-D NCDHW", [-1, 16, 4, 8, 8])):
            out.append({"label": label, "args": [("x", shape, "NCDHW"), ("y", [2, 16, 2, 4, 4], "NCDHW")],
                        "kwargs": {"ksize": [1, 1, 2, 2, 2], "strides": [1, 1, 2, 2, 2], "padding_mode": "CALCULATED",
                                   "pads": [0, 0, 0, 0, 0, 0], "dilation": [1, 1, 1, 1, 1], "ceil_mode": 0,
                                   "data_format": "NCDHW"}})
    elif op == "FullyConnection":
        out = [{"label": label, "args": [("x", [m, 64], "ND"), ("x", [16, 64], "ND"), None, None, ("y", [m, 16], "ND")],
                "kwargs": {"num_output": 16, "transpose": False, "axis": 1, "offset_x": 0}}
               for label, m in (("static 2-D ND", 32), ("dynamic 2-D ND", -1))]
    elif op == "GridSampler2D":
        out = each(["static 4-D NCHW", "dynamic 4-D NCHW"], lambda s, f: {
            "args": [("x", s, f), ("x", [2, 8, 8, 2], "ND"), ("y", s, f)],
            "kwargs": {"interpolation_mode": "bilinear", "padding_mode": "zeros", "align_corners": False}})
    elif op == "AscendAntiQuant":
        out = each(["static 4-D NCHW", "dynamic 4-D NCHW"], lambda s, f: {"args": [("x", s, f), ("y", s, f)],
                                                                          "kwargs": {"scale": 1.0, "offset": 0.0}})
    elif op in ("DynamicGRUV2", "DynamicRNN", "DynamicRNNV2"):
        # ONNX GRU/LSTM shapes: x [T, B, I], weights [I, 3H or 4H], hidden [H, ...]
        for label, t in (("static 3-D ND", 5), ("dynamic 3-D ND", -1)):
            x, h = [t, 2, 16], 16
            gates = 3 if op == "DynamicGRUV2" else 4
            if op == "DynamicGRUV2":
                args = [("x", x, "ND"), ("x", [16, gates * h], "ND"), ("x", [h, gates * h], "ND"),
                        ("float16", [gates * h], "ND"), ("float16", [gates * h], "ND"), None, None]
                args += [("y", [t, 2, h], "ND")] * 6
            elif op == "DynamicRNN":
                args = [("x", x, "ND"), ("x", [16 + h, gates * h], "ND"), ("float16", [gates * h], "ND")]
                args += [None] * 7 + [("y", [t, 2, h], "ND")] * 8
            else:
                args = [("x", x, "ND"), ("x", [16, gates * h], "ND"), ("x", [h, gates * h], "ND"),
                        ("float16", [gates * h], "ND")] + [None] * 7 + [("y", [t, 2, h], "ND")] * 8
            out.append({"label": label, "args": args, "kwargs": {}})
    return out


def build_args(case: dict, dtype: str) -> tuple[list, dict]:
    args: list = []
    for item in case["args"]:
        if item is None:
            args.append(None)
            continue
        role, shape, fmt = item
        if role == "xlist":
            args.append([tensor(shape, dtype, fmt), tensor(shape, dtype, fmt)])
        elif role in ("x", "y"):
            args.append(tensor(shape, dtype, fmt))
        else:
            args.append(tensor(shape, role, fmt))
    return args, dict(case["kwargs"])


def read_rows(result: Any) -> list[dict]:
    """The rows of op_select_format's answer: per io param, a list of (dtype, format)."""
    data = json.loads(result) if isinstance(result, str) else result
    params = {}
    for key, value in data.items():
        if not isinstance(value, dict):
            continue
        dtypes = [SPELLING.get(d.strip(), d.strip()) for d in str(value.get("dtype", "")).split(",") if d.strip()]
        formats = [f.strip() for f in str(value.get("format", "")).split(",") if f.strip()]
        params[key] = list(zip(dtypes, formats or ["?"] * len(dtypes)))
    return [params]


# --------------------------------------------------------------------------- evaluation

def snake(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower()


def impl_name(op: str, impl_root: Path) -> str:
    """The impl file name of an op without opFile: the snake-case name, with a digit+D kept together
    (Conv2D -> conv2d, MaxPool3D -> max_pool3d), whichever exists."""
    plain = snake(op)
    joined = re.sub(r"(\d)_d\b", r"\1d", plain)
    for name in (joined, plain):
        if (impl_root / f"{name}.py").is_file() or (impl_root / "dynamic" / f"{name}.py").is_file():
            return name
    return joined


def op_configs(release: str, root: Path) -> dict[str, dict[str, dict]]:
    """{family: {op: config entry}} from the extracted ops-info configs."""
    info = RELEASES[release]
    out: dict[str, dict[str, dict]] = {}
    for family in FAMILIES[release]:
        path = root / info["config"].format(soc=family)
        if path.suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
        else:
            data = {}
            parser = configparser.ConfigParser(strict=False, interpolation=None)
            parser.optionxform = str  # type: ignore[assignment,method-assign]
            parser.read_string(path.read_text(encoding="utf-8"))
            for section in parser.sections():
                entry: dict[str, dict] = {}
                for key, value in parser[section].items():
                    head, _, field = key.partition(".")
                    entry.setdefault(head, {})[field] = value
                data[section] = entry
        out[family] = data
    return out


def impl_choice(entry: dict) -> dict[str, str]:
    """Which impl file serves static and dynamic shapes: dynamicCompileStatic puts static shapes on the
    dynamic impl ("dynamic-static unification"), dynamicShapeSupport allows dynamic shapes."""
    def flag(key: str) -> bool:
        return str(entry.get(key, {}).get("flag", "false")).lower() == "true"

    return {"static": "dynamic" if flag("dynamicCompileStatic") else "static",
            "dynamic": "dynamic" if flag("dynamicShapeSupport") else "none"}


def evaluate(release: str, ops: list[str], work: Path) -> list[dict]:
    info = RELEASES[release]
    root = work / release
    if not (root / info["impl"]).is_dir():
        paths = [info["impl"], info["config"].split("/{soc}")[0]]
        git_extract(info["repo"], info["commit"], paths, root)
    impl_root = root / info["impl"]
    configs = op_configs(release, root)
    repo, commit, path = info["dsl_util"]
    dsl_src = git_show(repo, commit, path)
    dsl = literal_dicts(dsl_src, ["DSL_CHECK_SUPPORT_MAP"], PLATFORM_CONSTANTS).get("DSL_CHECK_SUPPORT_MAP", {})
    tik_src = git_show(CANN81, CANN81_COMMIT, f"{SITE81}/tbe/tik/common/tik_api_map.py")
    tik = literal_dicts(tik_src, ["ONLY_TIK_API_MAP"], {}).get("ONLY_TIK_API_MAP", {})
    params_src = git_show(CANN81, CANN81_COMMIT, f"{SITE81}/tbe/tik/tik_lib/tik_params.py")
    trans = literal_dicts(params_src, ["TRANS_TIK_API_TO_INSTR_MAP"], {}).get("TRANS_TIK_API_TO_INSTR_MAP", {})
    shape_util_src = git_show(CANN81, CANN81_COMMIT, f"{SITE81}/tbe/common/utils/shape_util.py")
    conv_util_src = git_show(CANN81, CANN81_COMMIT, f"{SITE81}/tbe/common/utils/op_util/op_util_conv2d.py")
    real = {"tbe.common.utils.shape_util": shape_util_src, "te.utils.shape_util": shape_util_src,
            "tbe.common.utils.op_util.op_util_conv2d": conv_util_src}
    platform_src = git_show(CANN81, CANN81_COMMIT, f"{SITE81}/tbe/common/platform/__init__.py")
    platform_src += "\n" + git_show(CANN81, CANN81_COMMIT, f"{SITE81}/tbe/common/platform/platform_info.py")
    constants = literal_dicts(platform_src, None, PLATFORM_CONSTANTS)
    results = []
    for family in FAMILIES[release]:
        for soc_version in FAMILY_SOCS[family]:
            ini = git_show(CANN81, CANN81_COMMIT, f"{INI81}/{soc_version}.ini")
            platform = Platform(soc_version, ini, dsl, tik, trans, constants)
            for op in ops:
                entry = configs[family].get(op)
                if entry is None or str(entry.get("dynamicFormat", {}).get("flag", "")).lower() != "true":
                    continue
                opfile = entry.get("opFile", {}).get("value") or impl_name(op, impl_root)
                choice = impl_choice(entry)
                flags = {k: str(entry.get(k, {}).get("flag", "false")).lower()
                         for k in ("dynamicCompileStatic", "dynamicShapeSupport")}
                chosen = (f"dynamicCompileStatic={flags['dynamicCompileStatic']}: static shapes use the "
                          f"{'dynamic' if choice['static'] == 'dynamic' else 'static'} impl; dynamicShapeSupport="
                          f"{flags['dynamicShapeSupport']}")
                for case in cases_for(op):
                    kind = "dynamic" if "dynamic" in case["label"] else "static"
                    which = choice[kind]
                    record = {"release": release, "family": family, "soc_version": soc_version, "op": op,
                              "case": case["label"], "impl": None, "offered": [], "refused": [], "unknown": {},
                              "touched": [], "impl_choice": chosen}
                    results.append(record)
                    if which == "none":
                        record["note"] = "no dynamic-shape kernel in the config"
                        continue
                    rel = f"dynamic/{opfile}.py" if which == "dynamic" else f"{opfile}.py"
                    record["impl"] = f"{info['impl']}/{rel}"
                    record.update(run_impl(impl_root, rel, case, platform, real))
                    if kind == "static":
                        # the impl the other reading of dynamicCompileStatic would pick, for comparison
                        other = f"{opfile}.py" if which == "dynamic" else f"dynamic/{opfile}.py"
                        alt = run_impl(impl_root, other, case, platform, real)
                        alt.pop("rows", None)
                        record["other_impl"] = {"impl": f"{info['impl']}/{other}", **alt}
    return results


def run_impl(impl_root: Path, rel: str, case: dict, platform: Platform, real: dict[str, str]) -> dict:
    """Call one impl file's op_select_format for every candidate dtype of CASE."""
    out: dict[str, Any] = {"offered": [], "refused": [], "unknown": {}}
    if not (impl_root / rel).is_file():
        out["note"] = "impl file absent from the tree"
        return out
    module_name = "impl." + rel[:-3].replace("/", ".")
    platform.touched = {}
    with sandbox(impl_root, platform, real):
        try:
            with contextlib.suppress(Exception):
                # the 2022 platform_adapter and util_common import each other: the
                # package __init__ (not run here) imports util_common first
                importlib.import_module("impl.util.util_common")
            module = importlib.import_module(module_name)
        except Exception as exc:  # noqa: BLE001
            out["note"] = f"import failed: {type(exc).__name__}: {exc}"[:300]
            return out
        func = getattr(module, "op_select_format", None)
        if func is None:
            out["note"] = "no op_select_format in the impl"
            return out
        platform.touched = {}  # only what op_select_format consults, not the imports
        try:
            lines, first = inspect.getsourcelines(func)
            where = Path(inspect.getsourcefile(func) or "").relative_to(impl_root).as_posix()
            out["function"] = {"file": where, "lines": [first, first + len(lines) - 1]}
            for name in func.__code__.co_names:  # a thin op_select_format that returns another impl's
                other = func.__globals__.get(name)
                if inspect.isfunction(other) and other.__name__ == "op_select_format" and other is not func:
                    body, start = inspect.getsourcelines(other)
                    path = Path(inspect.getsourcefile(other) or "").relative_to(impl_root).as_posix()
                    out["function"]["delegates_to"] = {"file": path, "lines": [start, start + len(body) - 1]}
        except (OSError, TypeError, ValueError):
            pass
        for dtype in CANDIDATES:
            args, kwargs = build_args(case, dtype)
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    result = call(func, args, kwargs)
                rows = read_rows(result)[0]
            except Unresolved as exc:
                out["unknown"][dtype] = f"unresolved: {exc}"
                continue
            except ImplRaised as exc:
                out["unknown"][dtype] = f"raised: {exc}"
                continue
            except Exception as exc:  # noqa: BLE001
                # the function itself fails on this dtype (a lookup with no entry for it): not offered
                out.setdefault("raised", {})[dtype] = f"{type(exc).__name__}: {exc}"[:200]
                out["refused"].append(dtype)
                continue
            first = rows.get("input0") or next(iter(rows.values()), [])
            out.setdefault("rows", {})[dtype] = {k: sorted({f"{d}/{f}" for d, f in v}) for k, v in rows.items()}
            (out["offered"] if any(d == dtype for d, _ in first) else out["refused"]).append(dtype)
    out["touched"] = dict(sorted(platform.touched.items()))
    return out


def call(func: Any, args: list, kwargs: dict) -> Any:
    """Call FUNC with the tensors positionally and those attributes its signature names."""
    sig = inspect.signature(func)
    aliases = {"attr1": "axis", "attr2": "keep_dims"}  # the 2022 static SquareSumV1 numbers its attributes
    kwargs = {**kwargs, **{a: kwargs[b] for a, b in aliases.items() if b in kwargs}}
    accepted = {k: v for k, v in kwargs.items() if k in sig.parameters}
    return func(*args, **accepted)


# What reading the functions adds to the evaluated answers: the branches the answer rests on, and
# the attribute or shape conditions the shapes tried do not show. Keyed by (release or "*", op).
CONDITIONS = {
    ("cann-8.1.RC1", "Add"): ["float32/int8/uint8 where tbe.dsl.vadd takes float32; bfloat16 where Intrinsic_vconv "
                              "has bf162f32; int64 and bool on SHORT_SOC_VERSION Ascend310B, AS31XM1, Ascend310P, "
                              "Ascend910, Ascend910B, Ascend910_93; never double"],
    ("cann-8.1.RC1", "Mul"): ["as Add, with int16 where tbe.dsl.vmul takes int16"],
    ("cann-8.1.RC1", "RealDiv"): ["float16/float32/int32/bool everywhere but Hi3796CV300ES/CS and SD3403 (float16 "
                                  "only); bfloat16 where Intrinsic_vconv has f322bf16f; a bool input gives float32"],
    ("cann-8.1.RC1", "PadV3"): ["int8 only for mode constant, on chips where tik.vcopy exists or Ascend310P"],
    ("cann-8.1.RC1", "SoftmaxV2"): ["static shapes: bfloat16 only on Ascend910 or chips where tik.vcopy exists; "
                                    "dynamic shapes: bfloat16/float16/float32 on every chip"],
    ("cann-8.1.RC1", "Resize"): ["float32 only on the SHORT_SOC_VERSIONs check_soc_version_support lists (Ascend310, "
                                 "Ascend310B, AS31XM1, Ascend610, BS9SX1A, Ascend310P, Ascend910, Ascend910B): "
                                 "Ascend910_93 gets float16 only"],
    ("*", "MatMulV2"): ["static shapes use impl/mat_mul.py, dynamic shapes impl/dynamic/mat_mul.py, which offers "
                        "float16 only on chips without fixpipe"],
    ("*", "BatchMatMul"): ["static and dynamic shapes use different impls (see MatMulV2); on chips without fixpipe "
                           "float32/int32 (check_fp32_case_scenario) need static shapes, equal batch dims, rank 3 or "
                           "more and a last dim of x2 (after adj_x2) other than 1"],
    ("*", "BatchMatMulV2"): ["as BatchMatMul"],
    ("*", "Conv2D"): ["float32 (and bfloat16) only on chips with fixpipe (util_conv2d.is_support_fixpipe); the dynamic "
                      "impl has no op_select_format"],
    ("*", "SpaceToDepth"): ["the config's dynamicCompileStatic selects impl/dynamic/space_to_depth.py for every shape; "
                            "that file defines no op_select_format, so the dtypes GE offers are not in the Python "
                            "sources (the static impl's function is shown under other_impl for reference)"],
    ("*", "DynamicRNN"): ["ascend910b/ascend910_93 use dynamic_rnn_910b.py, an Ascend C op whose op_select_format "
                          "asks the compiled kernel (check_op_cap)"],
    ("*", "DynamicRNNV2"): ["ascend910b/ascend910_93 use dynamic_rnn_v2_910b.py (Ascend C, check_op_cap) for dynamic "
                            "shapes; its static impl is not in the tree"],
    ("canndev-2022-06", "PadV2"): ["the 2022 tree has no impl/pad_v2.py for static shapes (the config does not set "
                                   "dynamicCompileStatic); impl/dynamic/pad_v2.py answers dynamic shapes"],
    ("*", "GridSampler2D"): ["float32 only"],
    ("*", "AscendAntiQuant"): ["int8 input only"],
    ("*", "DynamicGRUV2"): ["x and weights float16 only; bias and init_h float16 or float32"],
}

NOTES = {
    "no op_select_format in the impl": "the impl file the config selects has no op_select_format function",
    "impl file absent from the tree": "the impl file the config selects is not in the tree",
}


def _reason(text: str) -> str:
    if text.startswith("unresolved: "):
        return f"op_select_format depends on {text[len('unresolved: '):]}, which the sources do not state"
    return NOTES.get(text, text)


def curate_shapes(cases: list[dict]) -> dict:
    """One answer for the static (or dynamic) cases of an op on a SoC: the dtypes offered for some shape
    tried, those unknown, and the dtypes offered for some shapes only (a condition)."""
    if not cases:
        return {"dtypes": None, "unknown": "not evaluated"}
    if all(c.get("note") == "no dynamic-shape kernel in the config" for c in cases):
        return {"dtypes": None, "unknown": None, "no_kernel": True}
    impl = cases[0].get("impl")
    out: dict[str, Any] = {"impl": impl}
    function = next((c["function"] for c in cases if c.get("function")), None)
    if function:
        out["function"] = function
    if all(c.get("note") for c in cases):
        out.update(dtypes=None, unknown=_reason(cases[0]["note"]))
        return out
    offered = set().union(*(c["offered"] for c in cases))
    unknown: dict[str, str] = {}
    for case in cases:
        for dtype, why in case["unknown"].items():
            if dtype not in offered:
                unknown.setdefault(dtype, _reason(why))
    if not offered and unknown:
        out.update(dtypes=None, unknown=sorted(set(unknown.values()))[0])
        return out
    out["dtypes"] = sorted(offered)
    out["unknown"] = None
    if unknown:
        out["unknown_dtypes"] = dict(sorted(unknown.items()))
    partial = {}
    for dtype in sorted(offered):
        missing = [c["case"] for c in cases if dtype not in c["offered"] and not c.get("note")]
        if missing:
            partial[dtype] = missing
    if partial:
        out["offered_only_for_some_shapes"] = {d: f"not offered for {', '.join(m)}" for d, m in partial.items()}
    return out


def curate(results: list[dict]) -> list[dict]:
    """Curated entries: one per release, kernel family and op."""
    groups: dict[tuple[str, str, str], list[dict]] = {}
    chips: dict[tuple[str, str, str], dict[str, list[tuple]]] = {}
    for r in results:
        key = (r["release"], r["family"], r["op"])
        chips.setdefault(key, {}).setdefault(r["soc_version"], []).append(
            (r["case"], tuple(sorted(r["offered"])), tuple(sorted(r["unknown"]))))
        if r["soc_version"] == FAMILY_SOCS[r["family"]][0]:
            groups.setdefault(key, []).append(r)
    entries = []
    for (release, family, op), cases in sorted(groups.items()):
        info = RELEASES[release]
        static = [c for c in cases if "dynamic" not in c["case"]]
        dynamic = [c for c in cases if "dynamic" in c["case"]]
        facts: dict[str, Any] = {}
        for c in cases:
            facts.update(c.get("touched") or {})
        entry = {
            "op": op, "release": release, "family": family, "evaluated_at": cases[0]["soc_version"],
            "static_shapes": curate_shapes(static), "dynamic_shapes": curate_shapes(dynamic),
            "platform_facts": dict(sorted(facts.items())),
            "shapes_tried": sorted({c["case"] for c in cases}),
            "config": f"{info['cite']}:{info['config'].format(soc=family)}@{info['commit']}",
            "impl_choice": cases[0].get("impl_choice"),
            "conditions": CONDITIONS.get((release, op), []) + CONDITIONS.get(("*", op), []),
        }
        answers = {tuple(sorted(v)) for v in chips[(release, family, op)].values()}
        entry["chips_compared"] = sorted(chips[(release, family, op)])
        if len(answers) > 1:
            entry["chips_differ"] = True  # the answer is not the same for every chip of the family
        other = [c.get("other_impl") for c in static if c.get("other_impl")]
        if entry["static_shapes"].get("dtypes") is None and other and all(o.get("offered") for o in other):
            entry["static_shapes"]["other_impl"] = {
                "source": f"{info['cite']}:{other[0]['impl']}@{info['commit']}",
                "dtypes": sorted(set().union(*(o["offered"] for o in other))),
                "note": "the impl the config does not select for these shapes; not the answer, for reference"}
        for key in ("static_shapes", "dynamic_shapes"):
            part = entry[key]
            if part.get("impl"):
                fn = part.pop("function", None)
                path = f"{info['impl']}/{fn['file']}" if fn else part["impl"]
                part["source"] = f"{info['cite']}:{path}@{info['commit']}" + (
                    f" (lines {fn['lines'][0]}-{fn['lines'][1]})" if fn else "")
                if fn and fn.get("delegates_to"):
                    to = fn["delegates_to"]
                    part["source"] += (f", which returns {info['impl']}/{to['file']}@{info['commit']} (lines "
                                       f"{to['lines'][0]}-{to['lines'][1]})")
                del part["impl"]
        entries.append(entry)
    return entries


def curated_doc(results: list[dict]) -> dict:
    """The document op_tables/curated/op_select_format.json holds."""
    return {
        "description": "AI Core input dtypes that each op's TBE op_select_format function offers, per kernel release "
                       "and SoC family, for the ops whose ops-info config leaves the dtypes to that function "
                       "(dynamicFormat.flag=true; kernels.json marks them op_select_format). 'dtypes' are those of the "
                       "data input (input 0, and the inputs that share its dtype); null with 'unknown' saying why "
                       "where the code does not answer.",
        "source": "leideng/CANN-8.1.RC1:Ascend/ascend-toolkit/8.1.RC1/opp/built-in/op_impl/ai_core/tbe/impl/"
                  "{,dynamic/}*.py@551ed27c and dengguojie/vue-element-admin:ops/built-in/tbe/impl/{,dynamic/}*.py"
                  "@7d77ce32d (the repository holds Huawei canndev): each entry's 'config' names the ops-info config, "
                  "and each shape kind's 'source' the op_select_format function and lines that answer",
        "how_derived": [
            "tools/extract_select_format.py imported each impl from the mirrors with the TBE runtime replaced by "
            "stand-ins and called op_select_format once per candidate dtype, per shape tried (ONNX-like: NCHW for 4-D, "
            "ND otherwise; static and with an unknown batch dim); a dtype is offered when it appears in input 0's "
            "column of the answer. Every answer was then checked against the code by reading it.",
            "Which impl answers: the config's dynamicCompileStatic=true puts static shapes on impl/dynamic/<op>.py "
            "(the documented 'dynamic-static unification'), otherwise impl/<op>.py; dynamic shapes use the dynamic "
            "impl where dynamicShapeSupport=true, and have no AI Core kernel otherwise (no_kernel).",
            "SoC answers: get_soc_spec and intrinsic_check_support from the SoC's platform ini "
            "(leideng/CANN-8.1.RC1:Ascend/ascend-toolkit/8.1.RC1/aarch64-linux/data/platform_config/<SoC>.ini@551ed27c, "
            "[version], [SoCInfo], [AICoreSpec], [AICoreintrinsicDtypeMap]); api_check_support('tbe.dsl.*') from the "
            "release's DSL_CHECK_SUPPORT_MAP (8.1: python/site-packages/tbe/dsl/compute/util.py@551ed27c; 2022: "
            "dengguojie/vue-element-admin:auto_schedule/python/tbe/dsl/compute/util.py@7d77ce32d); "
            "api_check_support('tik.*') from tbe/tik/common/tik_api_map.py and tik_params.py of the 8.1 package. The "
            "2022 tree has no platform inis or TIK maps: its intrinsic and TIK answers are the 8.1 package's for the "
            "same chip (hardware facts).",
            "No op context: ATC run without --op_select_implmode or --optypelist_for_implmode.",
            "platform_facts lists what the function consulted on the chip it was evaluated at; chips_compared the "
            "chips of the family evaluated (the answer is the same for each unless chips_differ)."],
        "entries": curate(results),
    }


def marked_ops() -> list[str]:
    """The Ascend ops op_tables/kernels.json marks op_select_format (AI Core dtypes left to the impl), any release."""
    doc = json.loads((Path(__file__).resolve().parents[1] / "op_tables" / "kernels.json").read_text(encoding="utf-8"))
    return sorted({e["op"] for e in doc["entries"] if e["aicore"] and e["aicore"].get("op_select_format")
                   and e["aicore"].get("dtypes") is None})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the raw evaluation (every case, every dtype)")
    parser.add_argument("--from-raw", type=Path, help="curate an earlier --out instead of evaluating again")
    parser.add_argument("--op", action="append")
    parser.add_argument("--release", action="append", choices=sorted(RELEASES))
    parser.add_argument("--curated", type=Path, help="also write the curated entries (one per release, family, op)")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "extract_select_format")
    args = parser.parse_args(argv)
    ops = args.op or marked_ops()
    if args.from_raw:
        out = json.loads(args.from_raw.read_text(encoding="utf-8"))
    else:
        out = []
        for release in args.release or sorted(RELEASES):
            out.extend(evaluate(release, ops, args.work))
        args.out.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{len(out)} cases written to {args.out}")
    if args.curated:
        args.curated.write_text(json.dumps(curated_doc(out), indent=1) + "\n", encoding="utf-8")
        print(f"curated entries written to {args.curated}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
