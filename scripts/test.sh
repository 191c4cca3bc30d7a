#!/usr/bin/env bash
# The project's test command: every package's and app's vitest suite through turbo (build first),
# then one plain summary line "N passed, N failed[, N skipped]" summed over all suites.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=./env.sh
source scripts/env.sh
if [ ! -d node_modules ] || ! node -e 'process.exit(+process.versions.node.split(".")[0] < 22)' 2>/dev/null; then
  bash scripts/setup.sh || exit 1
fi
# The suites' desktops run openbox unless OSHARM_DESKTOP_SHELL says otherwise: GNOME Shell, the product's
# default, takes ≈ 8 s more per desktop start on 2 cores (docs/benchmarks.md), and the suites start desktops
# by the hundred. GNOME Shell's own suite (vm-local gnome-shell.test.ts) asks for it explicitly; the
# fidelity e2e (tasks-check.e2e.test.ts) accepts openbox as a run's only reason to be unfaithful.
export OSHARM_DESKTOP_SHELL="${OSHARM_DESKTOP_SHELL:-openbox}"
# Nor does a local provider keep a warm spare (a second desktop started after each revert: the run
# path's default); the suites that test the spare ask for it (vm-local local-provider.test.ts).
export OSHARM_WARM_SPARE="${OSHARM_WARM_SPARE:-0}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# One package at a time: several suites drive real sandboxed desktops, and on 2 cores running them
# side by side only trades speed for timeouts. --continue reports every package, not the first failure.
NO_COLOR=1 FORCE_COLOR=0 pnpm exec turbo run test --concurrency=1 --continue --output-logs=full "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
node scripts/sum-test-results.mjs "$log"
exit "$status"
