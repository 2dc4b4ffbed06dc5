"""Problem packages: loading, validation, versions and the solutions' declared expectations."""

import shutil

import pytest

from runner import ProblemError, list_problems, load_problem
from runner.problems import read_expectation

from .conftest import FIXTURE_PROBLEMS, ROOT


@pytest.fixture
def package(tmp_path):
    """A private copy of stable-softmax to change."""
    shutil.copytree(ROOT / "problems" / "stable-softmax", tmp_path / "stable-softmax")
    return tmp_path


def test_the_repository_problems_are_listed_by_slug():
    slugs = [problem.slug for problem in list_problems()]
    assert "stable-softmax" in slugs and slugs == sorted(slugs)


def test_stable_softmax_declares_what_the_judge_needs():
    problem = load_problem("stable-softmax")
    assert problem.entry_points == ["softmax"]
    assert "aten::_softmax" in problem.forbidden
    assert [t.name for t in problem.selected_tests("sample")] == ["rows-last-dim", "large-magnitude",
                                                                  "middle-dim-float64"]
    assert any(test.timed for test in problem.tests) and not any(t.timed for t in problem.selected_tests("sample"))


def test_every_solution_declares_a_verdict():
    problem = load_problem("stable-softmax")
    expectations = [expected for _, expected, _ in problem.solutions()]
    assert expectations.count("accepted") >= 4
    assert len([e for e in expectations if e != "accepted"]) >= 6


def test_the_problems_directory_is_a_parameter():
    assert [p.slug for p in list_problems(FIXTURE_PROBLEMS)] == ["allreduce-sum", "kit-function", "kit-module"]


@pytest.mark.parametrize("slug", ["no-such-problem", "../problems", "Bad_Slug"])
def test_an_unknown_or_malformed_slug_is_refused(slug):
    with pytest.raises(ProblemError):
        load_problem(slug)


def test_a_malformed_problem_toml_is_refused_with_its_reason(package):
    path = package / "stable-softmax" / "problem.toml"
    path.write_text(path.read_text().replace('name = "timed-rows"\ntimed = true',
                                             'name = "timed-rows"\ntimed = true\nsample = true'))
    with pytest.raises(ProblemError, match="timed tests must be hidden"):
        load_problem("stable-softmax", package)


def test_a_package_missing_a_file_is_refused(package):
    (package / "stable-softmax" / "spec.py").unlink()
    with pytest.raises(ProblemError, match="spec.py"):
        load_problem("stable-softmax", package)


def test_the_version_follows_the_files_that_decide_a_verdict(package):
    before = load_problem("stable-softmax", package).version
    (package / "stable-softmax" / "statement.md").write_text("reworded")
    assert load_problem("stable-softmax", package).version == before
    with open(package / "stable-softmax" / "spec.py", "a") as spec:
        spec.write("\n# stricter\n")
    assert load_problem("stable-softmax", package).version != before


def test_a_custom_problem_needs_its_own_checker_and_driver(package):
    toml = package / "stable-softmax" / "problem.toml"
    toml.write_text(toml.read_text().replace('kind = "function"', 'kind = "custom"'))
    (package / "stable-softmax" / "checker.py").write_text("")
    with pytest.raises(ProblemError, match="driver.py"):
        load_problem("stable-softmax", package)


def test_expectations_are_read_from_the_leading_comments():
    assert read_expectation(b"# expect: forbidden\n# message: aten::_softmax\nimport torch\n") == (
        "forbidden", "aten::_softmax")
    assert read_expectation(b"import torch\n") == (None, None)


def test_a_checker_is_imported_once_per_version_however_often_its_problem_is_loaded(tmp_path):
    """A worker loads the problem for each submission: what the checker keeps (checkpointed-block's plain
    model's peak) serves every later judgement, and an edited package gets a checker of its own."""
    checkpointed = load_problem("checkpointed-block").checker
    assert load_problem("checkpointed-block").checker is checkpointed
    assert load_problem("stable-softmax").checker is load_problem("stable-softmax").checker
    edited = tmp_path / "checkpointed-block"
    shutil.copytree(ROOT / "problems" / "checkpointed-block", edited)
    copied = load_problem("checkpointed-block", tmp_path).checker
    assert copied is not checkpointed  # another folder
    with (edited / "spec.py").open("a") as spec:
        spec.write("\nEDITED = True\n")
    changed = load_problem("checkpointed-block", tmp_path).checker
    assert changed is not copied
    assert load_problem("checkpointed-block", tmp_path).checker is changed



# Each table of problem.toml a kind reads refuses a key it does not know, naming it and the keys it knows: the
# misspelt key would otherwise be ignored and what it meant to set left at its default (a forbidden list
# dropped, a tolerance or a rule not applied). Each case edits a real package of the kind: (what the refusal
# calls the table, the package, the text replaced, the text put instead, the key refused, the keys it knows).
MISSPELT = [
    ("a function problem", "stable-softmax", "forbidden = [", "forbiden = [", "forbiden",
     "allowed_operators, difficulty, entry_points, follow_ups, forbidden, forbidden_stems, interface, kind, limits, "
     "mistakes, modules, needs, tags, tests, threads, title, tolerance, topics, world_size"),
    ("a function problem", "stable-softmax", "[tolerance]", "[outputs]\ny = {}\n\n[tolerance]", "outputs",
     "allowed_operators, difficulty, "),
    ("[interface]", "stable-softmax", 'kwargs = ["dim"]', 'kwarg = ["dim"]', "kwarg", "args, call, device, "),
    ("[interface.reach]", "mhsa", "[interface.reach]\n", "[interface.reach]\nups_to = 4\n", "ups_to",
     "dim, input, misses, output, sees, up_to"),
    ("[tolerance]", "stable-softmax", 'scale_by = ["x"]', 'scale = ["x"]', "scale",
     "reference_multiple, rounding_units, scale_by"),
    ("[limits]", "stable-softmax", "wall_s = 120", "wall_seconds = 120", "wall_seconds", "collective_timeout_s, "),
    ("[[tests]]", "stable-softmax", 'name = "rows-last-dim"\nsample = true', 'name = "rows-last-dim"\nsampel = true',
     "sampel", "name, params, sample, timed"),
    ("[[mistakes]]", "rmsnorm", "says = ", "sayz = ", "sayz", "says, solution, spec, when, with"),
    ("[outputs.codes]", "int8-quantize", "codes = { exact = true }", "codes = { exakt = true }", "exakt",
     "atol, exact, judged, rtol"),
    ("a stateful problem", "int8-quantize", "[outputs]", "[interface]\ncall = 'quantize'\n\n[outputs]",
     "interface", "allowed_operators, difficulty, "),
    ("[sampler]", "sampling", "false_rejection = ", "false_rejections = ", "false_rejections", "false_rejection"),
    ("a sampler problem", "sampling", "[sampler]", "[tolerance]\nrounding_units = 4.0\n\n[sampler]",
     "tolerance", "allowed_operators, difficulty, "),
    ("[ranks]", "tp-mlp", "relative_tolerance = ", "relative_tolerence = ", "relative_tolerence", "holdings, only, "),
    ("[ranks.holdings]", "tp-mlp", 'split = ["fc1.weight"', 'splits = ["fc1.weight"', "splits",
     "after, holder, lesson, share, split, whole"),
    ("[ranks.refusal]", "tp-mlp", 'divides = "d_hidden"', 'divide = "d_hidden"', "divide", "divides, raises, says"),
    ("[ranks.phases.forward]", "tp-mlp", 'says = "the forward pass"\nall_reduce = 1',
     'says = "the forward pass"\nallreduce = 1', "allreduce", "all_gather, all_reduce, all_to_all, at_most, "),
    ("[ranks.timeout]", "ring-allreduce", "[ranks.timeout]\n", "[ranks.timeout]\nall_sendin = 'x'\n", "all_sendin",
     "all_sending, says"),
    ("[ranks.sent]", "ring-allreduce", "[ranks.sent]\n", "[ranks.sent]\nover = 'x'\n", "over",
     "every_over, one_over, under"),
    ("[interface]", "checkpointed-block", 'call = "CheckpointedBlock"', 'call = "CheckpointedBlock"\nargs = ["x"]',
     "args", "call)"),
]


@pytest.mark.parametrize(("where", "slug", "written", "misspelt", "key", "knows"), MISSPELT,
                         ids=[f"{slug} {where}" for where, slug, *_ in MISSPELT])
def test_a_key_its_kind_does_not_read_is_refused_naming_it_and_the_keys_it_knows(tmp_path, where, slug, written,
                                                                                 misspelt, key, knows):
    shutil.copytree(ROOT / "problems" / slug, tmp_path / slug)
    toml = tmp_path / slug / "problem.toml"
    assert written in toml.read_text()
    toml.write_text(toml.read_text().replace(written, misspelt, 1))
    with pytest.raises(ProblemError) as refused:
        load_problem(slug, tmp_path)
    said = f"problem '{slug}': problem.toml: {where} has no key {key!r} (it knows {knows}"
    assert str(refused.value).startswith(said)
