#!/usr/bin/env bash
# Sets everything up and serves the app at http://127.0.0.1:8000 on its embedded defaults.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/bootstrap.sh run
py=.venv/bin/python

$py manage.py migrate --no-input
$py manage.py sync_content
$py manage.py collectstatic --no-input -v 0

# Every process started here stops with this script.
trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT INT TERM
$py manage.py runserver "${BIND:-127.0.0.1:8000}" &
wait -n
