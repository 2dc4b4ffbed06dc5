#!/usr/bin/env bash
# The judge on a GPU host: the sandbox first, then every problem on --device cuda, then the judge's speed there
# (the warm pool on CUDA; its timing against triton's do_bench), then hostile files.
#
#   bench/gpu_check.sh [OUT_DIR]            OUT_DIR defaults to $OUT, else ./gpu-check-out
#   PYTHON=/path/to/python3 bench/gpu_check.sh    an interpreter that has torch with CUDA (default: python3)
#   FULL=1 bench/gpu_check.sh              also `check --all --device cuda` (every solution of every problem)
#   DEVICE=cpu bench/gpu_check.sh          the same steps on the CPU, to try the script on a machine without GPU
#
# The kernel problems (triton-*) are among the references judged: on CUDA their kernels go through Triton's real
# compiler inside the sandbox (ptxas runs as the sandbox's child process, its time and memory the submission's),
# their time is judged against the reference kernel's, and no traffic is counted (only the CPU interpreter counts).
#   JOBS=4 bench/gpu_check.sh              judge the references, the hostile files and FULL's check --all four at
#                                          a time (default 1), so that a many-core host gets through them in a short lease
#
# The host needs PyTorch and CUDA, nothing else: where bubblewrap or setpriv is missing, the Debian packages
# in .gpu-bundle/ (fetched beforehand on a machine with a registry, see docs/operating.md "GPU check") are
# unpacked under /opt/runner-gpu-bundle and used. Every figure lands in OUT_DIR; summary.txt holds the verdicts.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=${1:-${OUT:-$root/gpu-check-out}}
mkdir -p "$out"
py=${PYTHON:-python3}
device=${DEVICE:-cuda}
jobs=${JOBS:-1}
summary="$out/summary.txt"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }

say "== machine"
{ nvidia-smi -L 2>&1 || true; uname -a; id; } | tee -a "$summary"
"$py" -c 'import sys, torch; print("python", sys.version.split()[0], sys.executable); print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")' 2>&1 | tee -a "$summary"

say "== bubblewrap and setpriv"
bundle=/opt/runner-gpu-bundle
tool() {  # tool NAME: the binary on PATH, else the one unpacked from the bundle
    if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return; fi
    if ls .gpu-bundle/*.deb >/dev/null 2>&1; then
        mkdir -p "$bundle/root"
        for deb in .gpu-bundle/*.deb; do dpkg -x "$deb" "$bundle/root" 2>/dev/null || true; done
        [ -x "$bundle/root/usr/bin/$1" ] && { echo "$bundle/root/usr/bin/$1"; return; }
    fi
    echo ""
}
bwrap=$(tool bwrap)
setpriv=$(tool setpriv)
say "bwrap: ${bwrap:-missing} $([ -n "$bwrap" ] && "$bwrap" --version 2>&1)"
say "setpriv: ${setpriv:-missing}"
if [ -n "$bwrap" ] && ldd "$bwrap" "${setpriv:-$bwrap}" 2>/dev/null | grep -q "not found"; then
    export LD_LIBRARY_PATH="$bundle/root/lib/x86_64-linux-gnu:$bundle/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    say "libraries from the bundle: $LD_LIBRARY_PATH"
fi
runner=("$py" -m runner ${bwrap:+--bwrap "$bwrap"} ${setpriv:+--setpriv "$setpriv"})

say "== the sandbox on $device"
sandbox=(--sandbox bubblewrap)
if ! "${runner[@]}" "${sandbox[@]}" judge stable-softmax bench/gpu_probe.py --device "$device" --tests sample \
        --json > "$out/probe.json" 2> "$out/probe.stderr"; then
    say "bubblewrap does not work here: $(tail -3 "$out/probe.stderr")"
    say "continuing WITHOUT isolation (plain process) so the CUDA path is still exercised"
    sandbox=(--sandbox plain)
    "${runner[@]}" "${sandbox[@]}" judge stable-softmax bench/gpu_probe.py --device "$device" --tests sample \
        --json > "$out/probe.json" 2>> "$out/probe.stderr"
fi
"$py" - "$out/probe.json" <<'PY' 2>&1 | tee -a "$summary"
import json, sys
verdict = json.load(open(sys.argv[1]))
message = verdict["tests"][0]["message"]
print("sandbox:", verdict["sandbox"])
print("inside:", message[message.rfind("PROBE") + 5:].splitlines()[0] if "PROBE" in message else message[-800:])
PY

say "== each problem's reference on $device (all tests, $jobs at a time)"
slugs=$("$py" -m runner list --json | "$py" -c 'import json, sys; print(" ".join(p["slug"] for p in json.load(sys.stdin) if p["needs"] != "cpu"))')
at_most_jobs() { while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done; }
for slug in $slugs; do
    at_most_jobs
    (
        started=$(date +%s.%N)
        "${runner[@]}" "${sandbox[@]}" judge "$slug" "problems/$slug/reference.py" --device "$device" --json \
            > "$out/reference-$slug.json" 2> "$out/reference-$slug.stderr"
        echo "$(date +%s.%N) - $started" | bc > "$out/reference-$slug.seconds" 2>/dev/null
    ) &
done
wait
for slug in $slugs; do
    "$py" - "$out/reference-$slug.json" "$slug" "$(cat "$out/reference-$slug.seconds" 2>/dev/null)" <<'PY' 2>&1 | tee -a "$summary"
import json, sys
try:
    v = json.load(open(sys.argv[1]))
except ValueError:
    print(f"{sys.argv[2]}: no verdict (see reference-{sys.argv[2]}.stderr)"); sys.exit()
bad = [f"{t['name']}: {t['status']}: {t['message'][:200]}" for t in v["tests"] if t["status"] != "passed"]
print(f"{v['problem']}: {v['verdict']} in {sys.argv[3]} s on {v['device']}; time {v['time']}; memory {v['memory']}")
for line in bad[:3]:
    print("   ", line)
PY
done

say "== speed on $device: the warm pool, and the judge's timing against triton.testing.do_bench"
"$py" bench/gpu_speed.py "$out" --device "$device" --sandbox "${sandbox[1]}" ${bwrap:+--bwrap "$bwrap"} \
    ${setpriv:+--setpriv "$setpriv"} 2>"$out/gpu-speed.stderr" | tee -a "$summary" \
    || say "gpu_speed.py failed: $(tail -5 "$out/gpu-speed.stderr")"

say "== hostile files on $device ($jobs at a time)"
attacks="cuda_side_stream cuda_memory_bomb infinite_loop memory_bomb_tensors fork_bomb read_repository
    connect_redis malicious_pickle disable_tracker_pop disable_tracker_bypass forbidden_through_aten
    patch_timers memoise_by_address background_thread_timed outlive_double_fork"
for attack in $attacks; do
    at_most_jobs
    file=tests/runner/attacks/$attack.py
    tests=$(sed -n 's/^# tests: //p' "$file" | head -1)
    "${runner[@]}" "${sandbox[@]}" judge stable-softmax "$file" --device "$device" --tests "${tests:-sample}" \
        --json > "$out/attack-$attack.json" 2> "$out/attack-$attack.stderr" &
done
wait
for attack in $attacks; do
    expected=$(sed -n 's/^# expect: //p' "tests/runner/attacks/$attack.py" | head -1)
    got=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$out/attack-$attack.json" 2>/dev/null || echo "no-verdict")
    [ "$got" = "$expected" ] && mark=ok || mark=UNEXPECTED
    say "$mark  $attack: expected $expected, got $got"
done

if [ "${FULL:-0}" = 1 ]; then
    say "== check --all on $device"
    "${runner[@]}" "${sandbox[@]}" check --all --jobs "$jobs" --device "$device" 2>&1 | tee "$out/check.txt" | tail -40 | tee -a "$summary"
fi
say "== done; figures in $out"
