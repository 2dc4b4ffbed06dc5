"""Which device node is the GPU a judge calls index i.

The judge numbers GPUs as CUDA does in the judging process: the i-th of the GPUs it can see. A GPU keeps
its host number wherever it is seen from (its node is /dev/nvidia<minor>), so the two differ inside a
container that was given some GPUs of the host, and wherever CUDA_VISIBLE_DEVICES selects some. The driver
lists every GPU it drives under /proc/driver/nvidia/gpus/<bus id>/information with its minor number and
UUID; a container's runtime shows only the GPUs it was given there, and only their nodes under /dev. The
visible GPUs are those, in PCI bus order (CUDA's order under CUDA_DEVICE_ORDER=PCI_BUS_ID, and for GPUs of
one model under the default order too), narrowed by CUDA_VISIBLE_DEVICES as CUDA reads it: indices into
that list or UUID prefixes, up to the first entry that names no GPU.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DRIVER_GPUS = Path("/proc/driver/nvidia/gpus")
DEVICES = Path("/dev")


class GpuNotFound(Exception):
    """The index names no GPU visible to this process."""


@dataclass(frozen=True)
class Gpu:
    """One GPU as the sandbox needs it: its node's minor number and what names it to CUDA inside."""

    minor: int
    uuid: str | None = None
    bus: str = ""

    @property
    def cuda_visible(self) -> str:
        """CUDA_VISIBLE_DEVICES for a process that should see this GPU alone. Without a UUID (no driver
        listing) the sandbox shows only this node, so the one device there is index 0."""
        return self.uuid or "0"


def _information(path: Path) -> dict[str, str]:
    fields = {}
    for line in path.read_text(errors="replace").splitlines():
        name, _, value = line.partition(":")
        fields[name.strip()] = value.strip()
    return fields


def installed(driver_gpus: Path = DRIVER_GPUS, devices: Path = DEVICES) -> list[Gpu]:
    """The GPUs this process could open, in PCI bus order: the driver's listing where there is one, else the
    /dev/nvidia<N> nodes in number order."""
    found = []
    for info in sorted(driver_gpus.glob("*/information")) if driver_gpus.is_dir() else []:
        fields = _information(info)
        try:
            minor = int(fields["Device Minor"])
        except (KeyError, ValueError):
            continue
        if (devices / f"nvidia{minor}").exists():
            found.append(Gpu(minor=minor, uuid=fields.get("GPU UUID") or None,
                             bus=fields.get("Bus Location", info.parent.name).lower()))
    if found:
        return sorted(found, key=lambda gpu: gpu.bus)
    nodes = [int(match.group(1)) for name in (os.listdir(devices) if devices.is_dir() else [])
             if (match := re.fullmatch(r"nvidia(\d+)", name))]
    return [Gpu(minor=minor) for minor in sorted(nodes)]


def visible(environ: Mapping[str, str] = os.environ, **where) -> list[Gpu]:
    """The GPUs CUDA shows this process, in its order (see the module's docstring)."""
    gpus = installed(**where)
    selection = environ.get("CUDA_VISIBLE_DEVICES")
    if selection is None:
        return gpus
    chosen: list[Gpu] = []
    for entry in (item.strip() for item in selection.split(",")):
        if re.fullmatch(r"\d+", entry) and int(entry) < len(gpus):
            gpu = gpus[int(entry)]
        else:
            matches = [gpu for gpu in gpus if entry.startswith("GPU-") and gpu.uuid and gpu.uuid.startswith(entry)]
            if len(matches) != 1:
                break
            gpu = matches[0]
        if gpu in chosen:
            break
        chosen.append(gpu)
    return chosen


def gpu(index: int, environ: Mapping[str, str] = os.environ, **where) -> Gpu:
    """The GPU this process calls index; GpuNotFound when there is no such GPU."""
    found = visible(environ, **where)
    if not 0 <= index < len(found):
        raise GpuNotFound(f"there is no GPU {index}: this process sees {len(found)} "
                          f"({', '.join(f'/dev/nvidia{gpu.minor}' for gpu in found) or 'none'})")
    return found[index]
