"""Under CI=true the suite proves the sandbox: bubblewrap must be installed and work."""

import pytest

from .conftest import IN_CI, bubblewrap_works


@pytest.mark.skipif(not IN_CI, reason="only where CI runs (CI=true)")
def test_bubblewrap_works_where_ci_runs():
    assert bubblewrap_works(), ("bubblewrap is missing or cannot build the sandbox here; scripts/bootstrap.sh "
                                "installs it, and the sandbox tests would otherwise have nothing to prove")
