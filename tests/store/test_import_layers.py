"""The layers import only downward: every import in src/vybe, read from the source (also the
ones inside functions), is checked against the layer rules of docs/architecture.md."""

from __future__ import annotations

import ast
from pathlib import Path

import vybe

SOURCE = Path(vybe.__file__).parent
# The leaves any layer may import (docs/architecture.md), and the package itself.
LEAVES = (
    "vybe",
    "vybe.clock",
    "vybe.config",
    "vybe.digest",
    "vybe.errors",
    "vybe.jsonio",
    "vybe.locks",
    "vybe.text",
    "vybe.tuples",
)
# What each layer may import besides itself and the leaves.
ALLOWED = {
    "context": ("vybe.llm.base",),  # the engine: a record interface and a model interface
    "llm": (),  # model adapters know nothing of the engine
    # the SQLite record builds the engine's row types
    "store": ("vybe.context.types", "vybe.context.checkpoints"),
    # business logic over the store; user_words sizes the person's words as the engine does
    "actions": ("vybe.store", "vybe.context.tokens"),
    # the model-API proxy records through actions and checkpoints through the engine
    "proxy": ("vybe.actions", "vybe.context", "vybe.llm"),
}
NOBODY_BUT = {"vybe.cli": ("cli", "__main__"), "vybe.proxy": ("cli", "proxy")}


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every vybe module ``path`` imports, ``from vybe import clock`` read as vybe.clock."""
    package = module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else None
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = (package or module_name(path)).split(".")
                base = ".".join(anchor[: len(anchor) - node.level + 1] + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names if base == "vybe")
    return {n for n in names if n == "vybe" or n.startswith("vybe.")}


def inside(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def allowed(layer: str, name: str) -> bool:
    if any(inside(name, t) and layer not in users for t, users in NOBODY_BUT.items()):
        return False
    if layer not in ALLOWED or name in LEAVES or inside(name, f"vybe.{layer}"):
        return True
    return any(inside(name, p) for p in ALLOWED[layer])


def violations() -> list[str]:
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        layer = module_name(path).split(".")[1] if module_name(path) != "vybe" else ""
        for name in sorted(imported(path)):
            if not allowed(layer, name):
                found.append(f"{module_name(path)} imports {name}")
    return found


def test_every_import_follows_the_layer_rules():
    assert violations() == []


def test_the_rules_catch_an_engine_module_that_imports_the_store(tmp_path, monkeypatch):
    """The check itself can fail: a stray import in the engine is found."""
    fake = tmp_path / "vybe"
    (fake / "context").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "context" / "__init__.py").write_text("")
    (fake / "context" / "bad.py").write_text("def f():\n    from vybe.store import db\n")
    (fake / "llm").mkdir()
    (fake / "llm" / "bad.py").write_text("from ..context import mind\n")
    monkeypatch.setitem(globals(), "SOURCE", fake)
    assert violations() == [
        "vybe.context.bad imports vybe.store",
        "vybe.llm.bad imports vybe.context",
    ]
