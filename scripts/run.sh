#!/usr/bin/env bash
# Sets everything up and serves the app at http://127.0.0.1:8000 with a judge worker beside it, on the embedded
# defaults: SQLite and a queue of files under var/queue/, so no service needs installing. Ctrl-C stops both.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/bootstrap.sh run
py=.venv/bin/python

$py manage.py migrate --no-input
$py manage.py sync_content
$py manage.py collectstatic --no-input -v 0

# A machine whose PyTorch sees a GPU judges the GPU queue too.
queues=cpu
if $py -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
    queues=cpu,gpu
fi

# Every process started here stops with this script; a worker in the middle of a judge finishes it first.
trap 'trap - EXIT INT TERM; kill $(jobs -p) 2>/dev/null; wait' EXIT INT TERM
$py -m celery -A interview worker --queues "$queues" --concurrency 1 --hostname "judge@%h" \
    --without-mingle --without-gossip --loglevel INFO &
$py manage.py runserver "${BIND:-127.0.0.1:8000}" &
wait -n
