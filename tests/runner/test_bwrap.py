"""The bubblewrap command lines, as built (the CUDA branch included, which this machine cannot run)."""

import os
import sys

from runner.sandbox import bwrap

from .conftest import ROOT


def _layout(**overrides):
    values = dict(python=sys.executable, harness_dir=str(ROOT / "runner" / "harness"),
                  ro_paths=bwrap.minimal_roots(bwrap.interpreter_paths()), env={"PATH": "/usr/bin"})
    values.update(overrides)
    return bwrap.Layout(**values)


def _pairs(argv, flag):
    return [tuple(argv[i + 1:i + 3]) for i, arg in enumerate(argv) if arg == flag]


def test_as_root_the_sandbox_drops_to_the_slot_uid_between_two_bubblewraps():
    argv = bwrap.root_command(_layout(), 60007, seccomp_fd=9, fds=[5, 6])
    setpriv = argv.index("setpriv")
    outer, inner = argv[:setpriv], argv[setpriv:]
    assert "--unshare-user" not in outer and {"--unshare-pid", "--unshare-net", "--unshare-ipc"} <= set(outer)
    assert ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"] == outer[outer.index("--cap-add"):][:4]
    assert {"--reuid=60007", "--regid=60007", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
            "--no-new-privs"} <= set(inner)
    assert {"--unshare-user", "--disable-userns", "--die-with-parent"} <= set(inner)
    assert inner[inner.index("--seccomp") + 1] == "9"
    assert "--proc" not in inner  # a nested proc mount is refused under the outer one
    assert argv[-5:] == ["-m", "harness", "5", "6", "cpu"]


def test_as_a_user_one_bubblewrap_holds_every_namespace_and_the_filter():
    argv = bwrap.user_command(_layout(), seccomp_fd=9, fds=[5, 6])
    assert {"--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-net", "--new-session",
            "--die-with-parent", "--clearenv"} <= set(argv)
    assert "--cap-add" not in argv and argv[argv.index("--seccomp") + 1] == "9"


def test_every_bind_is_read_only_and_its_parents_are_made_traversable():
    argv = bwrap.user_command(_layout(), seccomp_fd=9, fds=[5, 6])
    binds = _pairs(argv, "--ro-bind")
    assert ("/usr", "/usr") in binds or os.path.islink("/usr")
    assert (str(ROOT / "runner" / "harness"), "/judge/harness") in binds
    assert "--bind" not in argv
    made = [argv[i + 3] for i, arg in enumerate(argv) if arg == "--perms" and argv[i + 2] == "--dir"]
    for source, destination in binds:
        if destination.count("/") > 1 and not destination.startswith(("/usr", "/sys", "/etc")):
            parent = os.path.dirname(destination)
            assert parent in made, f"{parent} would keep its source's mode"


def test_the_repository_itself_is_never_bound():
    for source, _ in _pairs(bwrap.user_command(_layout(), 9, [5, 6]), "--ro-bind"):
        assert source != str(ROOT) and not (str(ROOT) + "/").startswith(source.rstrip("/") + "/"), source
        assert not source.startswith(str(ROOT / "problems"))


def test_a_cuda_sandbox_sees_only_its_own_gpu():
    argv = bwrap.user_command(_layout(gpu_minor=1), seccomp_fd=9, fds=[5, 6])
    device_binds = _pairs(argv, "--dev-bind") + _pairs(argv, "--dev-bind-try")
    assert ("/dev/nvidia1", "/dev/nvidia1") in device_binds
    assert not any(source == "/dev/nvidia0" for source, _ in device_binds)
    assert {source for source, _ in device_binds} <= {"/dev/nvidia1", "/dev/nvidiactl", "/dev/nvidia-uvm",
                                                      "/dev/nvidia-uvm-tools"}
    assert argv[-1] == "cuda"


def test_paths_inside_another_bound_path_or_under_usr_are_not_bound_twice():
    assert bwrap.minimal_roots(["/opt/a", "/opt/a/b", "/usr/lib/python3", "/", "/opt/c"]) == ["/opt/a", "/opt/c"]


def test_the_zygote_keeps_only_the_capabilities_its_children_isolate_themselves_with_and_no_filter():
    argv = bwrap.zygote_command(_layout(), control_fd=7, seccomp_fd=9)
    assert {"--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session",
            "--clearenv"} <= set(argv)
    assert argv[argv.index("--cap-drop"):argv.index("--cap-drop") + 2] == ["--cap-drop", "ALL"]
    assert {value for flag, value in zip(argv, argv[1:]) if flag == "--cap-add"} == {
        "CAP_SYS_ADMIN", "CAP_NET_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"}
    # Its children take the sandbox's filter themselves, once they have built their namespaces.
    assert "--seccomp" not in argv and "--unshare-user" not in argv
    assert argv[-5:] == ["-B", "-m", "harness.zygote", "7", "9"]
    assert _pairs(argv, "--ro-bind") == _pairs(bwrap.user_command(_layout(), 9, [5, 6]), "--ro-bind")


def test_a_bind_under_the_private_tmp_keeps_sandboxes_from_the_zygote():
    assert not bwrap.under_private_mounts(_layout(ro_paths=["/opt/venv", "/judge-extra"]))
    assert bwrap.under_private_mounts(_layout(ro_paths=["/opt/venv", "/tmp/checkout/.venv"]))
    assert bwrap.under_private_mounts(_layout(ro_paths=["/dev/shm/venv"]))
