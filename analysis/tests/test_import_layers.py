"""analysis/ imports in one direction only (analysis/README.md "Layout"): the graph of its modules'
imports, read from their source (imports inside functions included, so none can hide a cycle), has no
cycle, and a subpackage imports only from its own layer or the layers below it. An import inside a
function is allowed in the CLI alone (analysis/__main__.py: `sweep-args` runs on the host's python3
before the venv exists, so the CLI loads a command's modules only when that command runs)."""
import ast
import os

ANALYSIS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(ANALYSIS)

# bottom to top: a layer may import its own modules and those of the layers before it
LAYERS = ["common", "bench", "collect", "figures", "render", "experiments"]
TOP = {"__main__", "entry"}  # the CLI and the driver's entry points, above every layer
LAZY_IMPORTS_ALLOWED = {"analysis.__main__"}


def module_files():
    """{dotted module name: path} of every module of the package, tests left out."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(ANALYSIS):
        dirnames[:] = sorted(d for d in dirnames if d not in ("tests", "__pycache__"))
        for f in filenames:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(dirpath, f), REPO_ROOT)[: -len(".py")].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                out[".".join(rel)] = os.path.join(dirpath, f)
    return out


def _resolve(module, node, modules):
    """The package's modules one import statement names (`from . import a, b` names a and b)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in modules]
    if node.level:
        package = module.split(".")
        if not modules[module].endswith("__init__.py"):
            package = package[:-1]
        base = package[: len(package) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    found = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules]
    return found or ([target] if target in modules else [])


def import_graph():
    """({module: {imported module: line}}, [(module, line) of each import inside a function])."""
    modules = module_files()
    graph, lazy = {}, []
    for module, path in modules.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        in_function = {id(n) for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                       for n in ast.walk(fn)}
        edges = graph.setdefault(module, {})
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                targets = [t for t in _resolve(module, node, modules) if t != module]
                for t in targets:
                    edges.setdefault(t, node.lineno)
                if targets and id(node) in in_function:
                    lazy.append((module, node.lineno))
    return graph, lazy


def cycles(graph):
    """Every strongly connected set of more than one module (Tarjan's algorithm, iterative)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    scc = []
                    while True:
                        w = stack.pop(); on_stack.discard(w); scc.append(w)
                        if w == v:
                            break
                    if len(scc) > 1:
                        found.append(sorted(scc))
    return found


def layer_of(module):
    parts = module.split(".")
    if len(parts) == 1:
        return None  # the package itself (analysis/__init__.py)
    if parts[1] in TOP:
        return len(LAYERS)
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else -1


def test_the_analysis_package_has_no_import_cycle():
    graph, _ = import_graph()
    assert cycles(graph) == []


def test_no_import_hides_inside_a_function():
    _, lazy = import_graph()
    hidden = [f"{m}:{line}" for m, line in lazy if m not in LAZY_IMPORTS_ALLOWED]
    assert hidden == [], "imports inside functions (move the code where it belongs instead): " + ", ".join(hidden)


def test_every_module_lives_in_a_layer():
    stray = [m for m in module_files() if layer_of(m) == -1]
    assert stray == [], f"modules outside the layers {LAYERS} (analysis/README.md Layout): {stray}"


def test_subpackages_import_only_their_own_layer_or_below():
    graph, _ = import_graph()
    upward = [f"{m} imports {t} (line {line})" for m, edges in graph.items() for t, line in edges.items()
              if layer_of(m) is not None and layer_of(t) is not None and layer_of(t) > layer_of(m)]
    assert upward == [], "imports against the layers' direction: " + "; ".join(sorted(upward))


def test_the_graph_sees_imports_inside_functions_and_relative_ones():
    """The reader above finds what it must: a cycle hidden in a function, `from . import a`, `from .a
    import f` (else the tests above could pass on a package full of cycles)."""
    import tempfile
    global ANALYSIS, REPO_ROOT
    saved = ANALYSIS, REPO_ROOT
    with tempfile.TemporaryDirectory() as tmp:
        pkg = os.path.join(tmp, "analysis", "common")
        os.makedirs(pkg)
        files = {"analysis/__init__.py": "", "analysis/common/__init__.py": "",
                 "analysis/common/a.py": "from . import b\n",
                 "analysis/common/b.py": "def f():\n    from .c import g\n",
                 "analysis/common/c.py": "from analysis.common import a\n"}
        for name, text in files.items():
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(text)
        ANALYSIS, REPO_ROOT = os.path.join(tmp, "analysis"), tmp
        try:
            graph, lazy = import_graph()
        finally:
            ANALYSIS, REPO_ROOT = saved
    assert cycles(graph) == [["analysis.common.a", "analysis.common.b", "analysis.common.c"]]
    assert lazy == [("analysis.common.b", 2)]
