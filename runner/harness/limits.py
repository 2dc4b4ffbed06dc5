"""Limits the harness puts on its own process before any submission code runs.

Set while the harness is still trusted (nothing of the submission has run yet); hard limits cannot be
raised again by an unprivileged process, and children inherit them.
"""

from __future__ import annotations

import os
import resource

RLIMITS = {
    "nproc": resource.RLIMIT_NPROC,
    "nofile": resource.RLIMIT_NOFILE,
    "fsize_bytes": resource.RLIMIT_FSIZE,
    "cpu_s": resource.RLIMIT_CPU,
    "data_bytes": resource.RLIMIT_DATA,
    "core_bytes": resource.RLIMIT_CORE,
}


def address_space_in_use() -> int:
    """This process's current virtual size in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def apply(requested: dict) -> None:
    """Apply the named limits; address_space_extra_bytes is added to what torch's import already maps."""
    for name, value in requested.items():
        if name in RLIMITS and value is not None:
            resource.setrlimit(RLIMITS[name], (int(value), int(value)))
    extra = requested.get("address_space_extra_bytes")
    if extra is not None:
        ceiling = address_space_in_use() + int(extra)
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))
    try:
        with open("/proc/self/oom_score_adj", "w") as adjust:
            adjust.write("1000")
    except OSError:
        pass


def close_descriptors_but(*keep: int) -> None:
    """Close every descriptor of this process but those named."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    bounds = sorted(set(keep))
    for low, high in zip([-1, *bounds], [*bounds, soft if soft != resource.RLIM_INFINITY else 1 << 16]):
        # closerange(n, n) with n = 0 would ask the kernel to close everything from 0 up.
        if high > low + 1:
            os.closerange(low + 1, high)
