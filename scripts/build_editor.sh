#!/usr/bin/env bash
# Rebuilds the browser code editor from editor/ into interview/static/interview/editor/ (editor.js,
# editor.css, LICENSES.txt). Only needed after changing editor/: the built files are committed, so the
# app itself needs neither Node nor the network. Needs Node 18.17 or newer (Debian 12's nodejs) and npm.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root/editor"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "error: the editor build needs Node 18.17 or newer with npm (Debian: apt-get install nodejs npm)." >&2
    exit 1
fi
if ! node -e 'const [major, minor] = process.versions.node.split(".").map(Number);
              process.exit(major > 18 || (major === 18 && minor >= 17) ? 0 : 1)'; then
    echo "error: Node $(node --version) is too old for the editor build; 18.17 or newer is needed." >&2
    exit 1
fi

# Exactly the versions in package-lock.json. No package's install script runs: esbuild finds its binary
# through its platform package without one.
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
node build.mjs

out="$root/interview/static/interview/editor"
for file in editor.js editor.css LICENSES.txt; do
    printf '%-14s %7d bytes, %6d gzipped\n' "$file" "$(wc -c <"$out/$file")" "$(gzip -9c "$out/$file" | wc -c)"
done
