#!/bin/bash
# osharm local desktop: starts a system service (activated on the sandbox's system bus) as root of
# the desktop's nested user namespace — the one `sudo` gives (guest/sudo/common.sh) — in a further
# mount namespace of its own where the service's state directory is a private tmpfs and the account
# tools it runs (adduser, deluser, useradd, userdel, usermod, chpasswd, passwd, gpasswd) are wrapped by
# record-tool.sh, which logs each call before running it. Usage: as-root.sh DAEMON [ARG...]
# (common.sh is not written for set -u)
# shellcheck source=../sudo/common.sh
. /opt/osharm/desktop-guest/guest/sudo/common.sh
# Activated by the system bus on the server's side: the root namespace `sudo` gives is the agent
# namespace's (guest/agent-ns.sh), so enter that first.
if osharm_outside_agent_ns; then
  osharm_in_agent_ns /bin/bash "$0" "$@"
  exit $?
fi
holder="$(osharm_root_holder)" || exit 1
exec nsenter --target "$holder" --user --mount --preserve-credentials --wd=/ -- \
  unshare --mount --propagation slave -- /bin/bash -c '
    set -eu
    real=/run/osharm/root/real-tools
    mkdir -p "$real" /run/osharm/root/state
    for tool in adduser deluser useradd userdel usermod chpasswd passwd gpasswd; do
      path=$(command -v "$tool" 2>/dev/null) || continue
      : >"$real/$tool"
      mount --bind "$path" "$real/$tool"
      mount --bind /opt/osharm/desktop-guest/guest/system/record-tool.sh "$path"
    done
    for state in /var/lib/AccountsService; do
      [ -d "$state" ] || continue
      mkdir -p "/run/osharm/root/state$state"
      cp -a "$state/." "/run/osharm/root/state$state/" 2>/dev/null || true
      mount --bind "/run/osharm/root/state$state" "$state"
    done
    exec "$@"' as-root "$@"
