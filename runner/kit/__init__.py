"""The problem kit: what every problem shares, so that a new problem is mostly data.

A problem declares its `kind` in problem.toml. The standard kinds (`function`, `module`) need no checker or
driver of their own: `[interface]` pins the call, `spec.py` draws the inputs, and runner/kit/standard.py
judges. A `custom` problem (a stateful object stepped, a sampler, distributed ranks) writes a small checker.py
and driver.py from these helpers. Inside the sandbox every driver can `import kit` (runner/kit/sandbox.py).
See problems/README.md, "The problem kit".
"""

from .checks import chi_square, check_close, check_exact, tolerance
from .standard import KINDS, STANDARD_KINDS, load_module, run_in_float64, truth_by_reference

__all__ = ["KINDS", "STANDARD_KINDS", "chi_square", "check_close", "check_exact", "load_module", "run_in_float64",
           "tolerance", "truth_by_reference"]
