# shellcheck shell=bash
# Source this file to put the project's toolchain (Node >= 22, pnpm) first on PATH.
# scripts/setup.sh installs it into .tools/ when the machine's Node is older than 22.
OSHARM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export OSHARM_ROOT
export PATH="$OSHARM_ROOT/.tools/node/bin:$OSHARM_ROOT/node_modules/.bin:$PATH"
export TURBO_TELEMETRY_DISABLED=1
export DO_NOT_TRACK=1
export COREPACK_ENABLE_DOWNLOAD_PROMPT=0
# pnpm 10 cannot verify registry signatures here: never let it try to switch versions.
export npm_config_manage_package_manager_versions=false
