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
    "vybe.limits",
    "vybe.locks",
    "vybe.privacy",
    "vybe.served",
    "vybe.stdout",
    "vybe.text",
    "vybe.tuples",
)
EVERYTHING_BELOW_CLI = (
    "vybe.operations",
    "vybe.actions",
    "vybe.agent",
    "vybe.integrations",
    "vybe.proxy",
    "vybe.store",
    "vybe.context",
    "vybe.llm",
    "vybe.ui",
)
# What each layer may import besides itself and the leaves; a layer with no rule fails.
ALLOWED = {
    **{leaf.rsplit(".", 1)[1]: () for leaf in LEAVES[1:]},  # a leaf: only other leaves
    "__main__": ("vybe.cli",),
    "cli": EVERYTHING_BELOW_CLI,  # the top: parses a line, calls one operation
    # the agents' surfaces: the hooks, the importers, the MCP tools (from the declarations)
    "integrations": ("vybe.operations", "vybe.actions", "vybe.store", "vybe.context"),
    # `vybe chat`'s runner on vybe.Session: the engine, a model, the record, vybe's tools
    "agent": ("vybe.operations", "vybe.store", "vybe.context", "vybe.llm"),
    # the model-API proxy records through actions and checkpoints through the engine
    "proxy": ("vybe.actions", "vybe.context", "vybe.llm"),
    "operations": ("vybe.actions", "vybe.store"),  # declarations over actions
    # business logic over the store; user_words sizes the person's words as the engine does,
    # the viewer knows a harness's input by the engine's source line
    "actions": ("vybe.store", "vybe.context.tokens", "vybe.context.labels"),
    # the SQLite record builds the engine's row types
    "store": ("vybe.context.types", "vybe.context.checkpoints"),
    "context": ("vybe.llm.base",),  # the engine: a record interface and a model interface
    "llm": (),  # model adapters know nothing of the engine
    "ui": ("vybe.actions",),  # `vybe ui`: pages read through actions, never writing
}
# The rooms of a layer split by concern, and what each may import besides itself, the leaves
# and what its layer allows; a module of such a layer in none of its rooms fails.
ROOMS = {
    "integrations": {
        # the handlers of the agents' events; a hook imports the transcript since the last one
        "hooks": ("vybe.actions", "vybe.store", "vybe.context", "vybe.integrations.importers"),
        # an import shares a hook's lock, a shell's exit code and a compaction's marks
        "importers": (
            "vybe.store",
            "vybe.context",
            "vybe.integrations.hooks.hook",
            "vybe.integrations.hooks.compaction",
        ),
        "setup": (),  # the agents' settings files: the leaves only
        "mcp": ("vybe.operations", "vybe.store"),  # tools from the declarations
    },
}
# The package's public names resolve lazily (``vybe.__getattr__``): ``import vybe`` itself
# imports nothing of vybe.
PACKAGE = ""
NOBODY_BUT = {
    "vybe.cli": ("cli", "__main__"),
    "vybe.proxy": ("cli", "proxy"),
    "vybe.ui": ("cli", "ui"),
}


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
            names.update(f"vybe.{a.name}" for a in node.names if base == "vybe" and _module(a.name))
    return {n for n in names if n == "vybe" or n.startswith("vybe.")}


def _module(name: str) -> bool:
    """Whether ``vybe.<name>`` is a module or package (not a name such as __version__)."""
    return (SOURCE / name).is_dir() or (SOURCE / f"{name}.py").is_file()


def inside(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def allowed(layer: str, name: str) -> bool:
    if any(inside(name, t) and layer not in users for t, users in NOBODY_BUT.items()):
        return False
    if name in LEAVES or inside(name, f"vybe.{layer}"):
        return True
    return any(inside(name, p) for p in ALLOWED[layer])


def in_room(layer: str, room: str, name: str) -> bool:
    """Whether a module of ``room`` (a sub-package of ``layer``) may import ``name``."""
    if name in LEAVES or inside(name, f"vybe.{layer}.{room}"):
        return True
    return any(inside(name, p) for p in ROOMS[layer][room])


def violations() -> list[str]:
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        parts = module_name(path).split(".")
        layer = parts[1] if len(parts) > 1 else PACKAGE
        if layer == PACKAGE:
            continue
        if layer not in ALLOWED:
            found.append(f"{module_name(path)} is in no layer of the rules")
            continue
        room = parts[2] if layer in ROOMS and len(parts) > 2 else None
        if room is not None and room not in ROOMS[layer]:
            found.append(f"{module_name(path)} is in no room of {layer}")
            continue
        for name in sorted(imported(path)):
            if not allowed(layer, name) or (room and not in_room(layer, room, name)):
                found.append(f"{module_name(path)} imports {name}")
    return found


# No two modules may import each other, however indirectly (inside functions too).
CYCLE_FREE = ("vybe",)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(SOURCE.rglob("*.py"))}


def module_imports(path: Path, known: dict[str, Path]) -> set[str]:
    """The modules ``path`` imports: ``from vybe.integrations.hooks import hook`` is the module
    vybe.integrations.hooks.hook, not the package."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            named = {f"{node.module}.{a.name}" for a in node.names}
            found.update(named & known.keys() or {node.module})
    return found & known.keys()


def cycles(prefixes: tuple[str, ...]) -> list[list[str]]:
    """The import cycles among the modules inside ``prefixes``: each a strongly connected
    set of two or more (Tarjan's algorithm), sorted."""
    known = modules()
    within = {m: p for m, p in known.items() if any(inside(m, x) for x in prefixes)}
    graph = {m: sorted(module_imports(p, known) & within.keys()) for m, p in within.items()}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            group = stack[stack.index(node) :]
            del stack[stack.index(node) :]
            if len(group) > 1:
                found.append(sorted(group))

    for node in graph:
        if node not in order:
            visit(node)
    return sorted(found)


def test_no_module_imports_one_that_imports_it():
    assert cycles(CYCLE_FREE) == []


def test_the_cycle_check_finds_two_modules_that_import_each_other_inside_functions(
    tmp_path, monkeypatch
):
    fake = tmp_path / "vybe"
    (fake / "cli").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "cli" / "__init__.py").write_text("")
    (fake / "cli" / "a.py").write_text("from vybe.cli import b\n")
    (fake / "cli" / "b.py").write_text("def f():\n    from vybe.cli.c import x\n")
    (fake / "cli" / "c.py").write_text("def g():\n    import vybe.cli.a\n")
    (fake / "cli" / "d.py").write_text("from vybe.cli import a\n")
    monkeypatch.setitem(globals(), "SOURCE", fake)
    assert cycles(("vybe.cli",)) == [["vybe.cli.a", "vybe.cli.b", "vybe.cli.c"]]


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
    (fake / "config.py").write_text("from vybe.store import is_url\n")
    (fake / "operations").mkdir()
    (fake / "operations" / "bad.py").write_text("from vybe.integrations import hooks\n")
    (fake / "plugins").mkdir()
    (fake / "plugins" / "new.py").write_text("")
    (fake / "integrations" / "setup").mkdir(parents=True)
    (fake / "integrations" / "setup" / "bad.py").write_text(
        "from vybe.integrations.hooks.hook import Hook\n"
    )
    (fake / "integrations" / "setup" / "good.py").write_text(
        "from vybe.integrations.setup import x\n"
    )
    (fake / "integrations" / "importers").mkdir()
    (fake / "integrations" / "importers" / "bad.py").write_text("from vybe.operations import y\n")
    (fake / "integrations" / "loose.py").write_text("")
    monkeypatch.setitem(globals(), "SOURCE", fake)
    assert violations() == [
        "vybe.config imports vybe.store",
        "vybe.context.bad imports vybe.store",
        "vybe.integrations.importers.bad imports vybe.operations",
        "vybe.integrations.loose is in no room of integrations",
        "vybe.integrations.setup.bad imports vybe.integrations.hooks.hook",
        "vybe.llm.bad imports vybe.context",
        "vybe.operations.bad imports vybe.integrations",
        "vybe.plugins.new is in no layer of the rules",
    ]


def test_every_package_opens_with_its_charter():
    """Each package's ``__init__.py`` says in its docstring what the package holds."""
    uncharted = [
        str(init.relative_to(SOURCE))
        for init in sorted(SOURCE.rglob("__init__.py"))
        if not ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    ]
    assert uncharted == []
