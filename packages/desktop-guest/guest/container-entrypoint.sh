#!/bin/bash
# osharm desktop image (scripts/build-desktop-image.sh, Containerfile): the container's first process,
# run as uid 1000 "user". Takes the guest server's token from OSHARM_GUEST_TOKEN, keeps it only in a
# private file (the processes started later, the agent's included, never inherit it), then runs the
# same desktop start as the embedded sandbox (sandbox-init.sh, sandbox-session.sh): the guest server
# listens on /run/harness/guest.sock (a host directory mounted there: the container needs no network),
# or on TCP port OSHARM_GUEST_PORT with OSHARM_GUEST_PORT set (an image run by hand: -p 5000).
set -u
if [ "$(id -u)" -eq 0 ]; then
  echo "osharm: the desktop image runs as uid 1000, not root (podman run --user 1000:1000)" >&2
  exit 1
fi
if [ -z "${OSHARM_GUEST_TOKEN:-}" ]; then
  echo "osharm: set OSHARM_GUEST_TOKEN, the guest server's bearer token" >&2
  exit 1
fi
# /run/harness is the host's directory for the guest server's socket (the token stays inside).
mkdir -p -m 700 /run/user/1000/osharm && chmod 700 /run/user/1000/osharm # (a pod's volume there comes world-writable)
(umask 077 && printf '%s' "$OSHARM_GUEST_TOKEN" >/run/user/1000/osharm/token)
unset OSHARM_GUEST_TOKEN
export OSHARM_GUEST="${OSHARM_GUEST:-/opt/osharm/desktop-guest}" OSHARM_NODE="${OSHARM_NODE:-/opt/osharm/node}"
export PATH="$OSHARM_GUEST/guest/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
export PYTHONPATH="$OSHARM_GUEST/guest/python" LANG="${LANG:-C.UTF-8}"
export OSHARM_SCREEN="${OSHARM_SCREEN:-1920x1080x24}"
# Chromium's own sandbox needs user namespaces, which the engine's seccomp profile refuses to a
# process without capabilities; the container is the boundary here.
export OSHARM_CHROMIUM_FLAGS="${OSHARM_CHROMIUM_FLAGS:---no-sandbox}"
# Likewise Firefox's and Thunderbird's (Gecko): its child processes chroot, refused here (EPERM), and
# crash, so Firefox opens no page at all.
export MOZ_DISABLE_CONTENT_SANDBOX=1 MOZ_DISABLE_RDD_SANDBOX=1 MOZ_DISABLE_SOCKET_PROCESS_SANDBOX=1 \
  MOZ_DISABLE_GMP_SANDBOX=1 MOZ_DISABLE_UTILITY_SANDBOX=1
if [ -n "${OSHARM_GUEST_PORT:-}" ]; then
  export OSHARM_LISTEN="--port $OSHARM_GUEST_PORT --host 0.0.0.0"
fi
helper=/usr/bin/python3
[ -x /opt/osharm/python3 ] && helper=/opt/osharm/python3
export OSHARM_SERVER_ARGS="--helper-python $helper --tunnel-port 9222 --tunnel-port 8080 ${OSHARM_SERVER_ARGS:-}"
exec /bin/bash "$OSHARM_GUEST/guest/sandbox-init.sh"
