#!/usr/bin/env bash
# Installs the Debian packages of the local sandboxed desktop (scripts/debian-packages.txt) that are
# missing. Needs root (apt-get); without root it prints the command to run and exits 0, so the rest
# of the setup goes on (osharm run then reports what is missing).
# OSHARM_DESKTOP_PROFILE: "full" (default: every application the benchmark uses) or "minimal" (the
# desktop with Writer, Calc, Chromium, a text editor and a terminal; no "full:" lines).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
profile="${OSHARM_DESKTOP_PROFILE:-full}"
case "$profile" in
  full) list="$(grep -v '^#' "$root/scripts/debian-packages.txt" | sed 's/^full://')" ;;
  minimal) list="$(grep -v -e '^#' -e '^full:' "$root/scripts/debian-packages.txt")" ;;
  *)
    echo "install-desktop: OSHARM_DESKTOP_PROFILE must be full or minimal, not \"$profile\"" >&2
    exit 2
    ;;
esac
read -r -a packages <<<"$(echo "$list" | tr '\n' ' ')"
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-desktop: all ${#packages[@]} Debian packages of the $profile profile present" >&2
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "install-desktop: the local desktop needs: apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 0
fi
echo "install-desktop: installing ${#missing[@]} Debian package(s): ${missing[*]}" >&2
apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
