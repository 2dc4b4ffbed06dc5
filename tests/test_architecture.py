"""What may import what (docs/architecture.md), read from the code's import graph.

The graph counts every import statement, those inside functions and under TYPE_CHECKING included: a circle
closed by a lazy import is still a circle.
"""

import ast
import sys
from pathlib import Path

import grimp
import pytest

WEB_ENTRY_POINTS = ("interview.urls", "interview.wsgi", "interview.admin")
# The worker side: the only modules of interview/ that may reach the judge engine.
ENGINE = "interview.judge.engine"
ENGINE_USERS = {"interview.judge.runs", "interview.judge.tasks", "interview.judge.worker",
                "interview.management.commands.judge_self_check", "interview.services.content_sync"}


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("interview", "runner", "tests", include_external_packages=True, cache_dir=None)


def _cycles(graph: grimp.ImportGraph, roots: tuple[str, ...] = ("interview", "runner", "tests")) -> list[list[str]]:
    """Every strongly connected group of more than one module of roots (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    ours = {module for module in graph.modules if module.split(".")[0] in roots}
    for root in sorted(ours):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root) & ours)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == module:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child) & ours))))
            elif child in on_stack:
                low[module] = min(low[module], index[child])
    return found


def test_no_module_of_the_tree_is_part_of_an_import_circle(graph):
    assert _cycles(graph) == []


def test_a_circle_closed_by_an_import_inside_a_function_is_found(tmp_path, monkeypatch):
    package = tmp_path / "circles"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from circles import b\n")
    (package / "b.py").write_text("def late():\n    from circles import a\n")
    (package / "c.py").write_text("from circles import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("circles", cache_dir=None)
    assert _cycles(graph, roots=("circles",)) == [["circles.a", "circles.b"]]


def test_runner_never_imports_the_web_app_or_django(graph):
    for imported in ("interview", "django", "celery"):
        chain = graph.find_shortest_chain(importer="runner", imported=imported, as_packages=True)
        assert chain is None, f"runner reaches {imported}: {' -> '.join(chain)}"


def test_only_the_engine_module_imports_runner(graph):
    importers = {module for module in graph.find_modules_that_directly_import("runner", as_package=True)
                 if module.startswith("interview")}
    assert importers == {ENGINE}


def test_only_the_worker_side_reaches_the_engine(graph):
    assert {module for module in graph.find_modules_that_directly_import(ENGINE)
            if module.startswith("interview")} <= ENGINE_USERS


@pytest.mark.parametrize("entry", WEB_ENTRY_POINTS)
def test_the_web_process_reaches_neither_the_engine_nor_pytorch(graph, entry):
    for imported in (ENGINE, "runner", "torch", "interview.judge.tasks", "interview.judge.worker"):
        packages = imported in ("runner", "torch")
        chain = graph.find_shortest_chain(importer=entry, imported=imported, as_packages=packages)
        assert chain is None, f"{entry} reaches {imported}: {' -> '.join(chain)}"


def test_the_command_line_client_is_a_client_of_the_http_api_alone(graph):
    for imported in ("django", "celery", "runner", "torch"):
        chain = graph.find_shortest_chain(importer="interview.cli", imported=imported, as_packages=True)
        assert chain is None, f"interview.cli reaches {imported}: {' -> '.join(chain)}"


def test_the_celery_app_knows_none_of_the_judging_modules(graph):
    imported = graph.find_modules_directly_imported_by("interview.celery")
    assert not {module for module in imported if module.startswith("interview")}


# What a problem package's files may import of the runner: the kit's public API on the trusted side, and the
# kit's sandbox half (`kit`, `kit_<name>`) in a driver. Anything else of the runner is an internal that can
# change under every problem at once.
PROBLEMS = Path(__file__).resolve().parents[1] / "problems"


def _runner_imports(path: Path) -> list[str]:
    """Each import of path that reaches the runner other than through the kit's public API, as written."""
    from runner import kit
    from runner.problems import KIT_SANDBOX_MODULES

    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names
                      if alias.name.split(".")[0] == "runner" or (alias.name.startswith("kit") and
                                                                  alias.name not in KIT_SANDBOX_MODULES)]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "runner":
            public = (node.module == "runner" and all(alias.name == "kit" for alias in node.names)) or (
                node.module == "runner.kit" and all(alias.name in kit.__all__ for alias in node.names))
            if not public:
                found.append(f"from {node.module} import {', '.join(alias.name for alias in node.names)}")
    return found


def test_a_problem_package_reaches_the_runner_only_through_the_kits_public_api():
    reached = {str(path.relative_to(PROBLEMS)): imports for path in sorted(PROBLEMS.rglob("*.py"))
               if (imports := _runner_imports(path))}
    assert reached == {}


def test_the_import_rule_for_problems_catches_an_internal_import(tmp_path):
    checker = tmp_path / "checker.py"
    checker.write_text("from runner import kit\nfrom runner.kit import check_close\nimport kit_ranks\n"
                       "from runner.kit.standard import load_module\nfrom runner import compare\nimport kit_nothing\n")
    assert _runner_imports(checker) == ["from runner.kit.standard import load_module", "from runner import compare",
                                        "kit_nothing"]



# The judge's orchestration and the kit are where the next problems and observations are added: no class
# there grows past what a reader holds in mind at once.
MAX_CLASS_LINES = 200


def test_no_class_of_the_judge_or_the_kit_is_over_the_size_a_reader_holds_in_mind():
    runner = Path(__file__).resolve().parents[1] / "runner"
    paths = [runner / "judge.py", *sorted((runner / "judging").glob("*.py")), *sorted((runner / "kit").glob("*.py"))]
    sizes = {f"{path.name}:{node.name}": node.end_lineno - node.lineno + 1 for path in paths if path.exists()
             for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.ClassDef)}
    assert {name: size for name, size in sizes.items() if size > MAX_CLASS_LINES} == {}


def test_no_module_of_the_runner_shadows_the_standard_library():
    """A plain-process sandbox runs with runner/ on its path: a runner/numbers.py there was imported in place of
    the standard library's numbers (torch imports it), and every judge without bubblewrap failed to start."""
    runner = Path(__file__).resolve().parent.parent / "runner"
    shadowing = sorted(path.stem for path in runner.glob("*.py") if path.stem in sys.stdlib_module_names)
    assert shadowing == []
