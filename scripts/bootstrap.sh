#!/usr/bin/env bash
# Creates or updates the project's virtual environment at .venv/ and the system packages it needs.
#
#   scripts/bootstrap.sh run    what serving the app needs
#   scripts/bootstrap.sh test   that plus the test tools and the browser
#
# Sourced or executed; idempotent: a second run with an unchanged pyproject.toml installs nothing.
set -euo pipefail

purpose=${1:-run}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$root/.venv"

python_bin=${PYTHON:-python3}
if ! "$python_bin" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "error: Python 3.11 or newer is needed as '$python_bin' (set PYTHON=/path/to/python3.11)." >&2
    exit 1
fi

# System packages: bubblewrap isolates judged code; Chromium drives the browser tests, and npm installs the
# axe-core they check accessibility with; the end-to-end tests start Redis servers of their own, to stop and
# restart them; docker-compose validates docker-compose.yml; iproute2 and socat give the two-host test its
# network namespaces and the way from them to the services.
system_packages=(bubblewrap)
[ "$purpose" = test ] && system_packages+=(chromium chromium-driver nodejs npm redis-server docker-compose iproute2 socat)
declare -A provides=([bubblewrap]=/usr/bin/bwrap [chromium]=/usr/bin/chromium [chromium-driver]=/usr/bin/chromedriver
                     [nodejs]=/usr/bin/node [npm]=/usr/bin/npm
                     [redis-server]=/usr/bin/redis-server [docker-compose]=/usr/bin/docker-compose
                     [iproute2]=/usr/sbin/ip [socat]=/usr/bin/socat)
# Its recommendations would bring the Docker daemon along, which only reading the file does not need.
declare -A without_recommends=([docker-compose]=1)

apt_install() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null \
        || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null; }
}

missing=()
for pkg in "${system_packages[@]}"; do
    [ -x "${provides[$pkg]}" ] || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "Installing system packages: ${missing[*]}"
        plain=() lean=()
        for pkg in "${missing[@]}"; do
            if [ -n "${without_recommends[$pkg]:-}" ]; then lean+=("$pkg"); else plain+=("$pkg"); fi
        done
        [ ${#plain[@]} -eq 0 ] || apt_install "${plain[@]}"
        [ ${#lean[@]} -eq 0 ] || apt_install --no-install-recommends "${lean[@]}"
    elif [ "$purpose" = test ]; then
        echo "error: missing system packages: ${missing[*]}" >&2
        echo "       install them (Debian/Ubuntu: sudo apt-get install ${missing[*]}) and run this again." >&2
        exit 1
    else
        echo "warning: ${missing[*]} not installed: submissions run in a plain child process, not the sandbox." >&2
    fi
fi

if [ ! -x "$venv/bin/python" ]; then
    echo "Creating $venv"
    "$python_bin" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
fi
pip=("$venv/bin/python" -m pip install -q --disable-pip-version-check)

# The CPU build of PyTorch, pinned, before anything asks for a bare "torch" (which would pull a CUDA build).
if ! "$venv/bin/python" -c 'import torch' 2>/dev/null; then
    echo "Installing PyTorch (CPU build)"
    "${pip[@]}" "torch==2.13.0"
fi

extras=""
[ "$purpose" = test ] && extras="[test]"
stamp="$venv/.installed-$purpose"
digest=$(sha256sum "$root/pyproject.toml" | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$digest" ]; then
    echo "Installing the project${extras}"
    "${pip[@]}" -e "$root$extras"
    echo "$digest" > "$stamp"
fi

# axe-core for the browser tests, exactly as tests/browser/axe/package-lock.json pins it; again only when the
# lock file changed. No install script runs (axe-core has none to run).
if [ "$purpose" = test ]; then
    axe="$root/tests/browser/axe"
    axe_stamp="$axe/node_modules/.installed"
    axe_digest=$(sha256sum "$axe/package-lock.json" | cut -c1-16)
    if [ "$(cat "$axe_stamp" 2>/dev/null)" != "$axe_digest" ]; then
        echo "Installing axe-core for the browser tests"
        (cd "$axe" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
        echo "$axe_digest" > "$axe_stamp"
    fi
fi
