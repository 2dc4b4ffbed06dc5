"""The function kind's [interface] options (records_graph, may_alias) and the sandbox helpers drivers share
(runner/kit/sandbox.py, runner/kit/standard.py)."""

import importlib.util
import shutil
from types import SimpleNamespace

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from runner import load_problem
from runner.kit import sandbox, standard, truth

from .conftest import FIXTURE_PROBLEMS


class Dispatched(TorchDispatchMode):
    """The names of the operators dispatched while it is on."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(func.name())
        return func(*args, **(kwargs or {}))


def by_autograd(x):
    leaf = x.detach().requires_grad_()
    with torch.enable_grad():
        (grad,) = torch.autograd.grad((leaf * leaf).sum(), leaf)
    return grad


def dispatched(call, records_graph):
    interface = {"call": "f", "args": ["x"], "outputs": ["y"], "records_graph": records_graph}
    with Dispatched() as seen:
        sandbox.run_standard("function", interface, SimpleNamespace(f=call), {}, {"x": torch.randn(3)},
                             truth.trusted_context())
    return seen.names


def test_a_call_that_must_not_record_a_graph_reports_each_saved_tensor_to_an_operator_a_problem_forbids():
    assert "autograd::graph_recorded" in dispatched(by_autograd, records_graph=False)
    assert "autograd::graph_recorded" not in dispatched(lambda x: 2 * x, records_graph=False)
    assert "autograd::graph_recorded" not in dispatched(by_autograd, records_graph=True)


def test_the_kits_driver_writes_the_interface_as_python_so_a_boolean_in_it_loads(tmp_path):
    folder = tmp_path / "kit-function"
    shutil.copytree(FIXTURE_PROBLEMS / "kit-function", folder)
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text().replace('outputs = ["y"]\n', 'outputs = ["y"]\nrecords_graph = false\n'))
    driver = tmp_path / "driver.py"
    driver.write_text(standard.driver_source(load_problem("kit-function", tmp_path)))
    assert truth.load_module(driver, "kit_function_driver").INTERFACE["records_graph"] is False


def test_only_an_output_the_interface_lets_pass_an_input_through_may_be_one(tmp_path):
    folder = tmp_path / "kit-function"
    shutil.copytree(FIXTURE_PROBLEMS / "kit-function", folder)
    checker = load_problem("kit-function", tmp_path).checker
    y = torch.randn(3)
    aliased = {"y": y, "y.aliases": torch.tensor(1)}
    assert "y is one of the inputs" in checker.output_problem({}, aliased, {"y": y})
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text().replace('outputs = ["y"]\n', 'outputs = ["y"]\nmay_alias = ["y"]\n'))
    assert load_problem("kit-function", tmp_path).checker.output_problem({}, aliased, {"y": y}) is None


def test_a_caught_exception_is_shown_in_the_sandbox_only(capsys):
    spec = importlib.util.spec_from_file_location("kit", sandbox.__file__)
    shipped = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shipped)  # as the sandbox loads it: the module `kit`
    for kit in (sandbox, shipped):
        try:
            raise LookupError("no such block")
        except LookupError:
            kit.show_exception()
    shown = capsys.readouterr().err
    assert shown.count("LookupError: no such block") == 1 and "Traceback" in shown
