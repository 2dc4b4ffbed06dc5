"""The problem kit: everything a problem package may use of the judge, and nothing else.

A problem declares its `kind` in problem.toml (kinds.KINDS: function, module, stateful, sampler, ranks, wrapper,
debugging, and custom, the escape hatch) and writes only what is its own, in `spec.py` through the hooks its kind declares
(api.Hook), and in `driver.py` where its kind runs the package's own driver. Its trusted files import this
package and nothing else of the runner (`from runner import kit`); inside the sandbox a driver imports the kit's sandbox half, `kit`
(sandbox.py) and `kit_<name>` (sandbox_<name>.py). tests/test_architecture.py holds every package to it.
See problems/README.md, "The problem kit".
"""

from runner.compare import layout, reveals_values, where
from runner.compare import tensors as compare_tensors
from runner.verdict import with_why

from .api import Checker, CheckerBase, Hook, KitError, Package, Params, Tensors
from .checks import check_close, check_exact, chi_square, tolerance
from .kinds import KINDS, Kind
from .mistakes import Mistake, exactly, reproduces, same, why_after_colon
from .ranks import RanksStep, by_rank, declared
from .ranks_module import module_inputs, module_steps, module_truth
from .ranks_reports import RankReport
from .reports import MALFORMED, TAMPERED, flag, scalar, text
from .sampler import Law
from .truth import load_module, load_sibling, run_by_driver, run_in_float64, trusted_context
from .wrapper import Lessons

__all__ = [
    # contracts
    "Checker", "CheckerBase", "Hook", "KINDS", "Kind", "KitError", "Package", "Params", "Tensors",
    # checks: floating outputs against a float64 truth, integer outputs exactly, samplers by chi-square
    "check_close", "check_exact", "chi_square", "compare_tensors", "layout", "tolerance",
    # a sampler's law: what one set of its draws must follow
    "Law",
    # messages: what a hidden test may show, where an entry is, a classic mistake reproduced, the rule or the fix
    # behind a failure kept for its why (shown on request, as a hint)
    "MALFORMED", "Mistake", "TAMPERED", "exactly", "reproduces", "reveals_values", "same", "where", "why_after_colon",
    "with_why",
    # reading a driver's reports
    "flag", "scalar", "text",
    # the truth and the package's own files on the trusted side
    "load_module", "load_sibling", "run_by_driver", "run_in_float64", "trusted_context",
    # the kinds' own vocabularies: a wrapper's lessons; distributed ranks' steps, reports, truth by rank, own
    # words, and the module scenario kit_ranks sets up and steps
    "Lessons", "RankReport", "RanksStep", "by_rank", "declared", "module_inputs", "module_steps", "module_truth",
]
