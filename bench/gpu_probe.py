# A stable-softmax "solution" that reports what a CUDA submission sees inside the sandbox, through the
# message of the error it raises (bench/gpu_check.sh reads it).
import json
import os

import torch


def softmax(x, dim=-1):
    report = {"uid": os.getuid(), "device": str(x.device), "dev": sorted(os.listdir("/dev")),
              "cuda_available": torch.cuda.is_available(), "device_count": torch.cuda.device_count()}
    if torch.cuda.is_available():
        a = torch.randn(1024, 1024, device="cuda")
        report["name"] = torch.cuda.get_device_name(0)
        report["matmul_ok"] = bool(torch.isfinite(a @ a).all().item())
        report["capability"] = list(torch.cuda.get_device_capability(0))
    try:
        report["proc_driver_gpus"] = sorted(os.listdir("/proc/driver/nvidia/gpus"))
    except OSError as error:
        report["proc_driver_gpus"] = str(error)
    raise RuntimeError("PROBE" + json.dumps(report))
