#!/usr/bin/env bash
# Builds the osharm desktop as an OCI image, localhost/osharm-desktop:<version>, from Debian packages
# only (no container registry): mmdebstrap makes a Debian 12 root file system from
# scripts/debian-packages.txt (the same list the embedded desktop installs), the built
# @osharm/desktop-guest guest server and its guest/ files and this repo's Node go in, then `podman import`.
# Needs root, podman, mmdebstrap (apt-get install -y podman mmdebstrap uidmap) and a built desktop-guest
# (pnpm exec turbo run build --filter=@osharm/desktop-guest).
# OSHARM_DESKTOP_PROFILE: full (default) or minimal, as scripts/install-desktop.sh.
# OSHARM_DESKTOP_IMAGE: the image name (default localhost/osharm-desktop:<desktop-guest version>[-minimal]).
# OSHARM_DEBIAN_MIRROR: the Debian mirror (default http://deb.debian.org/debian).
# Prints the build time and the image size at the end. See docs/packages/vm-container.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
profile="${OSHARM_DESKTOP_PROFILE:-full}"
case "$profile" in
  full) list="$(grep -v '^#' "$root/scripts/debian-packages.txt" | sed 's/^full://')" ;;
  minimal) list="$(grep -v -e '^#' -e '^full:' "$root/scripts/debian-packages.txt")" ;;
  *)
    echo "build-desktop-image: OSHARM_DESKTOP_PROFILE must be full or minimal, not \"$profile\"" >&2
    exit 2
    ;;
esac
version="$(node -p 'require(process.argv[1]).version' "$root/packages/desktop-guest/package.json")"
suffix=""
[ "$profile" = minimal ] && suffix="-minimal"
image="${OSHARM_DESKTOP_IMAGE:-localhost/osharm-desktop:$version$suffix}"
mirror="${OSHARM_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
guest="$root/packages/desktop-guest"
node_bin="$(command -v node)"
for need in podman mmdebstrap; do
  command -v "$need" >/dev/null || {
    echo "build-desktop-image: $need is missing: apt-get install -y podman mmdebstrap uidmap" >&2
    exit 1
  }
done
[ -f "$guest/dist/guest-server-bin.js" ] || {
  echo "build-desktop-image: $guest/dist/guest-server-bin.js is missing: pnpm exec turbo run build --filter=@osharm/desktop-guest" >&2
  exit 1
}
# Debian's package list, comma-separated, plus what the host usually has already: ca-certificates
# (HTTPS with --network), procps (ps, kill), libglib2.0-bin (gsettings, used by sandbox-session.sh).
packages="$(echo "$list" | tr -s ' \n' ',,' | sed 's/^,//; s/,$//'),ca-certificates,procps,libglib2.0-bin"
work="$(mktemp -d "${TMPDIR:-/tmp}/osharm-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
echo "build-desktop-image: $image ($profile profile) from $mirror" >&2
# The customize hooks run on the host with the root file system in "$1". Chromium gets the recommended
# policy the local desktop binds in (Google as default search engine: vm-local src/sandbox-chromium.ts).
mmdebstrap --variant=minbase --mode=root --format=tar \
  --aptopt='APT::Install-Recommends "false"' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --include="$packages" \
  --customize-hook='chroot "$1" useradd --uid 1000 --user-group --groups sudo --create-home --home-dir /home/user --shell /bin/bash user' \
  --customize-hook='install -d -m 1733 "$1/var/spool/cron/crontabs"' \
  --customize-hook="mkdir -p \"\$1/opt/osharm/desktop-guest/dist\" && cp -r '$guest/guest' \"\$1/opt/osharm/desktop-guest/\" && cp '$guest/dist/guest-server-bin.js' '$guest/package.json' \"\$1/opt/osharm/desktop-guest/dist/\" && mv \"\$1/opt/osharm/desktop-guest/dist/package.json\" \"\$1/opt/osharm/desktop-guest/\"" \
  --customize-hook="if [ -x '$guest/dist/osharm-exec-watch' ]; then install -m 0755 '$guest/dist/osharm-exec-watch' \"\$1/opt/osharm/desktop-guest/dist/\"; fi" \
  --customize-hook="find \"\$1/opt/osharm/desktop-guest\" -name __pycache__ -prune -exec rm -rf {} + ; chmod -R a+rX,go-w \"\$1/opt/osharm/desktop-guest\"" \
  --customize-hook="install -m 0111 '$node_bin' \"\$1/opt/osharm/node\" && install -m 0111 \"\$1/usr/bin/python3.11\" \"\$1/opt/osharm/python3\"" \
  --customize-hook="if [ -d \"\$1/etc/chromium\" ]; then install -D -m 0644 '$guest/guest/config/chromium-policy.json' \"\$1/etc/chromium/policies/recommended/osharm.json\"; fi" \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
  bookworm "$work/rootfs.tar" "$mirror"
bootstrapped=$(date +%s)
podman rmi --force "$image" >/dev/null 2>&1 || true
podman import \
  --change 'USER 1000:1000' \
  --change 'WORKDIR /home/user' \
  --change 'EXPOSE 5000' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENV OSHARM_GUEST=/opt/osharm/desktop-guest' \
  --change 'ENV OSHARM_NODE=/opt/osharm/node' \
  --change 'ENTRYPOINT ["/bin/bash", "/opt/osharm/desktop-guest/guest/container-entrypoint.sh"]' \
  --change "LABEL org.osharm.desktop.profile=$profile org.osharm.desktop.version=$version" \
  "$work/rootfs.tar" "$image" >/dev/null
end=$(date +%s)
size="$(podman image inspect --format '{{.Size}}' "$image")"
echo "build-desktop-image: built $image" >&2
echo "build_seconds=$((end - start)) bootstrap_seconds=$((bootstrapped - start)) import_seconds=$((end - bootstrapped)) image_bytes=$size image_mb=$((size / 1048576))"
