#!/bin/bash
# Gives root's podman the subordinate id range `--userns=auto` takes pods' user namespaces from
# (user "containers" in /etc/subuid and /etc/subgid, podman's convention). `podman kube play` needs
# it for a Pod with `hostUsers: false` (vm-kubernetes' desktop pod: the agent's namespace inside),
# as a kubelet with user namespaces needs its own range. Run as root. Idempotent.
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
  echo "podman-userns-auto: run as root (it edits /etc/subuid and /etc/subgid)" >&2
  exit 1
fi
size=$((65536 * 16))
# After the highest range in use (at least 200000), as scripts/rootless-podman-user.sh does.
next_range() {
  awk -F: 'BEGIN { top = 200000 } { end = $2 + $3; if (end > top) top = end } END { print top }' "$1" 2>/dev/null || echo 200000
}
for file in /etc/subuid /etc/subgid; do
  touch "$file"
  grep -q '^containers:' "$file" || echo "containers:$(next_range "$file"):$size" >>"$file"
done
echo "podman-userns-auto: containers has $(grep '^containers:' /etc/subuid | cut -d: -f2,3 | tr : +) subuids"
