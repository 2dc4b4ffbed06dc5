"""runner/ is a plain package: it never imports Django or the web app, directly or through an import."""

import ast
import subprocess
import sys

from .conftest import ROOT

FORBIDDEN_ROOTS = {"django", "interview", "celery"}


def test_no_runner_module_names_django_or_the_web_app():
    offenders = []
    for path in (ROOT / "runner").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            offenders += [f"{path.relative_to(ROOT)}: {name}" for name in names
                          if name.split(".")[0] in FORBIDDEN_ROOTS]
    assert not offenders


def test_importing_the_whole_runner_loads_neither_django_nor_the_web_app():
    code = ("import sys, runner, runner.cli, runner.check, runner.judge, runner.harness.serve, runner.harness.ranks;"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'django', 'interview', 'celery'}))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_the_harness_imports_only_the_standard_library_torch_and_itself():
    # Triton only in the warm-up a kernel problem's harness asks for, which only a worker with Triton reaches.
    allowed_in = {"triton_warm.py": {"triton"}}
    for path in (ROOT / "runner" / "harness").glob("*.py"):
        allowed = set(sys.stdlib_module_names) | {"torch"} | allowed_in.get(path.name, set())
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                roots = {(node.module or "").split(".")[0]}
            else:
                continue
            assert roots <= allowed, f"{path.name} imports {roots - allowed}"
