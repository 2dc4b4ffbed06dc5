"""python manage.py judge_self_check: judge every reference solution on one device; each must be accepted.

Judge workers run it before they consume (see interview/judge/worker.py); an operator can run it by hand on a new
host. Exits 1 when a reference is not accepted or a package does not load.
"""

import json
import sys

import torch
from django.core.management.base import BaseCommand

from interview.judge import engine


class Command(BaseCommand):
    help = "Judge every problem's reference solution (sample tests) on a device; exit 1 unless all are accepted."

    def add_arguments(self, parser):
        parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
        parser.add_argument("--gpu-index", type=int, default=0, help="which GPU, with --device cuda")
        parser.add_argument("--json", action="store_true", dest="as_json", help="print one JSON report on stdout, progress on stderr")

    def handle(self, *args, device: str, gpu_index: int, as_json: bool, **options):
        progress = sys.stderr if as_json else self.stdout
        report = {"device": device, "gpu_index": gpu_index, "torch_version": torch.__version__, "device_name": "",
                  "results": [], "error": ""}
        if device == "cuda":
            if not torch.cuda.is_available() or gpu_index >= torch.cuda.device_count():
                report["error"] = f"no usable GPU with index {gpu_index} (torch sees {torch.cuda.device_count()})"
                return self._end(report, as_json=as_json)
            report["device_name"] = torch.cuda.get_device_name(gpu_index)

        def show(result: engine.CheckResult) -> None:
            mark = "ok  " if result.ok else "FAIL"
            progress.write(f"self-check {mark} {device} {result.slug}: {result.verdict} ({result.seconds:.1f} s)\n")
            progress.flush()

        results = engine.self_check(device=device, gpu_index=gpu_index, on_result=show)
        report["results"] = [vars(result) for result in results]
        return self._end(report, as_json=as_json)

    def _end(self, report: dict, *, as_json: bool) -> None:
        failed = bool(report["error"]) or not all(result["ok"] for result in report["results"])
        if as_json:
            sys.stdout.write(json.dumps(report) + "\n")
        elif report["error"]:
            self.stderr.write(report["error"])
        if failed:
            sys.exit(1)
