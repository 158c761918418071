"""The engine module's type stub (python/transim/_core.pyi) declares what the compiled module
exports: the same names, and each function's parameters in the same order with the same
defaults present."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import transim
from transim import _core

STUB = Path(transim.__file__).with_name("_core.pyi")


def stub_items() -> dict[str, ast.stmt]:
    """The stub's public top-level declarations by name (private aliases left out)."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    out: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node
    return {k: v for k, v in out.items() if not k.startswith("_") or k == "__version__"}


def module_names() -> set[str]:
    return {n for n in vars(_core) if not n.startswith("_")} | {"__version__"}


def test_the_stub_ships_with_the_package() -> None:
    assert STUB.is_file(), f"{STUB} is missing: the package's types would be unknown"
    assert STUB.with_name("py.typed").is_file()


def test_the_stub_declares_exactly_what_the_module_exports() -> None:
    declared = set(stub_items())
    exported = module_names()
    assert declared - exported == set(), "declared in _core.pyi but not exported by the engine"
    assert exported - declared == set(), "exported by the engine but not declared in _core.pyi"


def test_every_export_says_what_it_is() -> None:
    """help() on the engine's functions shows their doc comments (a doc comment put above
    the wrong function once left one without and another with two)."""
    undocumented = [
        name for name in module_names() - {"__version__"} if not getattr(_core, name).__doc__
    ]
    assert undocumented == []
    assert (_core.max_min_fair.__doc__ or "").startswith("Max-min fair rates")


def test_each_function_has_the_engines_parameters() -> None:
    items = stub_items()
    checked = 0
    for name, node in items.items():
        if not isinstance(node, ast.FunctionDef):
            continue
        sig = inspect.signature(getattr(_core, name))
        real = [(p.name, p.default is not inspect.Parameter.empty) for p in sig.parameters.values()]
        args = node.args.args
        defaults = [False] * (len(args) - len(node.args.defaults)) + [True] * len(
            node.args.defaults
        )
        stub = [(a.arg, d) for a, d in zip(args, defaults, strict=True)]
        assert stub == real, f"{name}: the stub says {stub}, the engine {real}"
        checked += 1
    assert checked >= 15, f"only {checked} functions compared"
