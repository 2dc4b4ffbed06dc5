"""Which /dev/nvidiaN the sandbox binds for the GPU a judge calls index i: on a host, with
CUDA_VISIBLE_DEVICES, and inside a container that was given some of the host's GPUs."""

from __future__ import annotations

import pytest

from runner.sandbox import bwrap
from runner.sandbox.gpus import Gpu, GpuNotFound, gpu, installed, visible

UUIDS = ["GPU-0a0a0a0a-0000-0000-0000-000000000000", "GPU-1b1b1b1b-0000-0000-0000-000000000000",
         "GPU-2c2c2c2c-0000-0000-0000-000000000000", "GPU-3d3d3d3d-0000-0000-0000-000000000000"]
BUSES = ["0000:18:00.0", "0000:2a:00.0", "0000:9a:00.0", "0000:ab:00.0"]


def _host(tmp_path, listed=range(4), nodes=range(4), minors=None):
    """A driver listing and /dev of a host (or a container's view of one): GPU i at bus BUSES[i]."""
    driver, devices = tmp_path / "gpus", tmp_path / "dev"
    driver.mkdir()
    devices.mkdir()
    for index in listed:
        folder = driver / BUSES[index]
        folder.mkdir()
        minor = index if minors is None else minors[index]
        (folder / "information").write_text(
            f"Model: \t\t NVIDIA H200\nIRQ:   \t\t 42\nGPU UUID: \t {UUIDS[index]}\nVideo BIOS: \t 96.00\n"
            f"Bus Type: \t PCIe\nBus Location: \t {BUSES[index]}\nDevice Minor: \t {minor}\nGPU Excluded:\t No\n")
    for index in nodes:
        (devices / f"nvidia{index}").touch()
    (devices / "nvidiactl").touch()
    return {"driver_gpus": driver, "devices": devices}


def test_on_a_host_index_i_is_the_ith_gpu_in_bus_order(tmp_path):
    where = _host(tmp_path, minors={0: 2, 1: 0, 2: 3, 3: 1})
    assert [found.minor for found in installed(**where)] == [2, 0, 3, 1]
    assert gpu(1, {}, **where) == Gpu(minor=0, uuid=UUIDS[1], bus=BUSES[1])


def test_cuda_visible_devices_picks_and_orders_the_gpus_a_judge_numbers(tmp_path):
    where = _host(tmp_path)
    assert gpu(0, {"CUDA_VISIBLE_DEVICES": "3,1"}, **where).minor == 3
    assert gpu(1, {"CUDA_VISIBLE_DEVICES": "3,1"}, **where).minor == 1
    assert gpu(0, {"CUDA_VISIBLE_DEVICES": "GPU-2c2c"}, **where).minor == 2


def test_an_entry_that_names_no_gpu_ends_the_visible_list_as_cuda_reads_it(tmp_path):
    where = _host(tmp_path)
    assert [found.minor for found in visible({"CUDA_VISIBLE_DEVICES": "2,7,0"}, **where)] == [2]
    assert visible({"CUDA_VISIBLE_DEVICES": ""}, **where) == []
    assert [found.minor for found in visible({"CUDA_VISIBLE_DEVICES": "1,1"}, **where)] == [1]


def test_in_a_container_given_one_gpu_of_the_host_index_0_is_that_gpus_node(tmp_path):
    where = _host(tmp_path, listed=[3], nodes=[3])
    found = gpu(0, {}, **where)
    assert found.minor == 3 and found.cuda_visible == UUIDS[3]
    with pytest.raises(GpuNotFound, match="sees 1 .*/dev/nvidia3"):
        gpu(1, {}, **where)


def test_a_gpu_listed_by_the_driver_but_without_a_node_here_is_not_visible(tmp_path):
    where = _host(tmp_path, listed=range(4), nodes=[2])
    assert [found.minor for found in visible({}, **where)] == [2]


def test_without_the_drivers_listing_the_nodes_count_in_number_order(tmp_path):
    devices = tmp_path / "dev"
    devices.mkdir()
    for name in ("nvidia10", "nvidia2", "nvidiactl", "nvidia-uvm"):
        (devices / name).touch()
    where = {"driver_gpus": tmp_path / "missing", "devices": devices}
    assert [found.minor for found in visible({}, **where)] == [2, 10]
    assert gpu(1, {}, **where).cuda_visible == "0"


def test_the_sandbox_binds_the_node_of_the_mapped_gpu_and_no_other(tmp_path):
    where = _host(tmp_path, listed=[3], nodes=[3])
    layout = bwrap.Layout(python="/usr/bin/python3", harness_dir="/judge", ro_paths=[],
                          gpu_minor=gpu(0, {}, **where).minor)
    argv = bwrap.user_command(layout, seccomp_fd=9, fds=[5, 6])
    nodes = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--dev-bind" and argv[i + 1].startswith("/dev/nvidia")]
    assert nodes == ["/dev/nvidia3"]
