#!/usr/bin/env bash
# Creates an unprivileged account for running the container provider under rootless podman
# (docs/packages/vm-container.md, "Rootless podman"): the user, its /etc/subuid and /etc/subgid
# ranges (65536 ids each), and the desktop image copied into its own image store.
# Run as root on a machine with podman, uidmap and a built image. Idempotent.
# Usage: scripts/rootless-podman-user.sh [USER] [IMAGE]
#   USER   default osharm-rootless
#   IMAGE  default localhost/osharm-desktop:<desktop-guest version>-minimal (what CI builds)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
user="${1:-osharm-rootless}"
version="$(node -p 'require(process.argv[1]).version' "$root/packages/desktop-guest/package.json")"
image="${2:-localhost/osharm-desktop:$version-minimal}"
[ "$(id -u)" = 0 ] || { echo "rootless-podman-user: run as root (it creates an account)" >&2; exit 1; }
for need in podman newuidmap newgidmap; do
  command -v "$need" >/dev/null || {
    echo "rootless-podman-user: $need is missing: apt-get install -y podman uidmap" >&2
    exit 1
  }
done
id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
uid="$(id -u "$user")"
# A subordinate range no other account has: after the highest range in use (at least 200000).
next_range() {
  awk -F: 'BEGIN { top = 200000 } { end = $2 + $3; if (end > top) top = end } END { print top }' "$1" 2>/dev/null || echo 200000
}
grep -q "^$user:" /etc/subuid 2>/dev/null || echo "$user:$(next_range /etc/subuid):65536" >>/etc/subuid
grep -q "^$user:" /etc/subgid 2>/dev/null || echo "$user:$(next_range /etc/subgid):65536" >>/etc/subgid
# Its runtime directory (no systemd login session here to make one).
install -d -m 0700 -o "$user" -g "$user" "/run/user/$uid"
as_user() { su - "$user" -c "export XDG_RUNTIME_DIR=/run/user/$uid; $1"; }
as_user 'podman system migrate >/dev/null 2>&1 || true'
if ! as_user "podman image exists '$image'"; then
  echo "rootless-podman-user: copying $image into $user's image store" >&2
  podman save --format oci-archive "$image" | as_user "podman load >/dev/null"
fi
echo "rootless-podman-user: $user (uid $uid) with $(grep "^$user:" /etc/subuid | cut -d: -f2,3 | tr : +) subuids; run as: su - $user -c 'XDG_RUNTIME_DIR=/run/user/$uid …'"
