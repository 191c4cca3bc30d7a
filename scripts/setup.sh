#!/usr/bin/env bash
# Installs what a fresh machine lacks and builds the workspace:
#   - Node 22 (from the npm registry package `node`, into .tools/node) when the machine's Node is older than 22,
#   - pnpm (the version pinned in package.json "packageManager"), into the same prefix,
#   - the workspace dependencies (pnpm install --frozen-lockfile), then `turbo run build`.
#   - the Debian packages of the local sandboxed desktop (scripts/install-desktop.sh; needs root),
#   - VS Code for that desktop (scripts/install-vscode.sh: code-server from npm, ~2 min, ~700 MB;
#     OSHARM_SKIP_VSCODE=1 skips it),
# Idempotent: a second run only re-checks and rebuilds what changed (turbo cache).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=./env.sh
source scripts/env.sh

bash scripts/install-desktop.sh

pnpm_version="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' package.json)"
prefix="$root/.tools/node"

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(node_major)" -lt 22 ]; then
  echo "setup: Node $(node --version 2>/dev/null || echo none) is older than 22; installing node@22 into .tools/node" >&2
  npm install --global --prefix "$prefix" --no-fund --no-audit --loglevel=error node@22 >&2
  hash -r
fi
if [ "$(node_major)" -lt 22 ]; then
  echo "setup: could not get Node >= 22 (found $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi
if [ "$(pnpm --version 2>/dev/null || true)" != "$pnpm_version" ]; then
  echo "setup: installing pnpm@$pnpm_version into .tools/node" >&2
  npm install --global --prefix "$prefix" --no-fund --no-audit --loglevel=error "pnpm@$pnpm_version" >&2
  hash -r
fi
echo "setup: node $(node --version), pnpm $(pnpm --version)" >&2

if [ -f pnpm-lock.yaml ]; then
  pnpm install --frozen-lockfile --reporter=append-only >&2
else
  pnpm install --reporter=append-only >&2
fi
pnpm exec turbo run build --output-logs=errors-only >&2
# VS Code (web build) for the local desktop; without it `code` falls back to a text editor.
bash scripts/install-vscode.sh || echo "setup: VS Code was not installed (see above); the desktop's code command falls back to a text editor" >&2
echo "setup: done. Run ./osharm --help" >&2
