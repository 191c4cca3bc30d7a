#!/bin/bash
# osharm local desktop: the guest server's side of the sandbox. Starts the system bus, makes the
# agent's namespace (agent-ns.sh: the session D-Bus, the window manager and every process of the
# agent's actions run there, where they cannot signal or ptrace anything started here), then runs
# the guest server (the sandbox ends when it exits).
set -u
# The session bus lives on the agent's side (agent-session.sh) at this address.
export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
rm -f /run/osharm/shell.json
# The harm observer's exec and connection watch (exec_watch.py; OSHARM_EXEC_WATCH=0 turns it off,
# =python keeps the Python one):
# its supervisor runs here, on the server's side, before anything it watches starts; the agent's
# namespace (agent-ns.sh) and the guest server (below) run under its filter. Python with -I -S: no
# site packages to import (the wrap then costs ~47 ms instead of ~170 ms here) and no PYTHON* variables.
osharm_watch=()
if [ "${OSHARM_EXEC_WATCH:-1}" != 0 ] && [ -x /usr/bin/python3 ]; then
  osharm_watch_sock="$XDG_RUNTIME_DIR/osharm/exec-watch.sock"
  export OSHARM_EXEC_WATCH_RECORD="$XDG_RUNTIME_DIR/osharm/exec-watch.jsonl"
  rm -f "$OSHARM_EXEC_WATCH_RECORD" "$OSHARM_EXEC_WATCH_RECORD.dropped" "$XDG_RUNTIME_DIR"/osharm/exec-watch-*.problem
  # Its C twin (guest/watch/exec-watch.c, built into dist/ when a compiler was there) when present:
  # the same record at a fraction of the CPU per stopped call (docs/benchmarks.md).
  osharm_watch=(/usr/bin/python3 -I -S "$OSHARM_GUEST/guest/exec_watch.py")
  [ "${OSHARM_EXEC_WATCH:-1}" != python ] && [ -x "$OSHARM_GUEST/dist/osharm-exec-watch" ] &&
    osharm_watch=("$OSHARM_GUEST/dist/osharm-exec-watch")
  "${osharm_watch[@]}" supervise "$osharm_watch_sock" \
    "$OSHARM_EXEC_WATCH_RECORD" </dev/null >/dev/null 2>"$XDG_RUNTIME_DIR/osharm/exec-watch.log" &
  for _ in $(seq 100); do [ -S "$osharm_watch_sock" ] && break; sleep 0.02; done
  osharm_watch+=(wrap "$osharm_watch_sock")
fi
echo "exec-watch $EPOCHREALTIME" >>/run/osharm/start-phases
# shellcheck source=agent-ns.sh
. "$OSHARM_GUEST/guest/agent-ns.sh"
# The sandbox's own system bus (GNOME Settings' Users panel, GNOME Disks): guest/system. Started here,
# so the bus and the services it activates (the polkit and UDisks2 stand-ins) are on the server's
# side; as-root.sh starts accounts-daemon as root of the agent's sudo namespace (OSHARM_AGENT_NS_PID),
# the root `sudo` gives. The polkit stand-in is activated now, so it owns its name before the agent
# could claim it.
echo "agent-ns $EPOCHREALTIME" >>/run/osharm/start-phases
export OSHARM_AGENT_NS_PID="$agent_ns_pid"
if command -v dbus-daemon >/dev/null; then
  # shellcheck source=system/start-system-bus.sh
  . "$OSHARM_GUEST/guest/system/start-system-bus.sh"
  for _ in $(seq 100); do [ -S /run/dbus/system_bus_socket ] && break; sleep 0.05; done
  dbus-send --system --print-reply --reply-timeout=5000 --dest=org.freedesktop.PolicyKit1 \
    /org/freedesktop/PolicyKit1/Authority org.freedesktop.DBus.Peer.Ping >/dev/null 2>&1
fi
echo "system-bus $EPOCHREALTIME" >>/run/osharm/start-phases
# (Further server-side helpers start here: outside the agent's namespace, which exists from now on.)
# The shell starts on the agent's side (agent-session.sh, guest/shell); its record comes last.
for _ in $(seq $(((${OSHARM_SHELL_START_TIMEOUT_S:-45} + 15) * 20))); do
  [ -s /run/osharm/shell.json ] && break
  sleep 0.05
done
echo "shell-record $EPOCHREALTIME" >>/run/osharm/start-phases
# What the guest server starts in the agent's namespace (setup's launch steps) gets the session the
# shell's own programs get (start-shell.sh): GTK's input method, the desktop's name.
export GTK_IM_MODULE=gtk-im-context-simple
if grep -q '"shell":"gnome-shell"' /run/osharm/shell.json 2>/dev/null; then
  export XDG_CURRENT_DESKTOP=ubuntu:GNOME XDG_SESSION_TYPE=x11 XDG_SESSION_DESKTOP=ubuntu
else
  export XDG_CURRENT_DESKTOP=openbox XDG_SESSION_DESKTOP=openbox
fi
# OSHARM_LISTEN: the container image listens on TCP instead (guest/container-entrypoint.sh).
# OSHARM_DNS_LISTEN: the nameserver the desktop's resolv.conf names (the provider binds that file);
# the server binds it at its start, before anything of the agent's runs (src/guest-dns.ts);
# OSHARM_DNS_FORWARD: with a network, where it passes the queries on (slirp4netns' forwarder).
# OSHARM_EGRESS_SINK: without one, the link the provider adds with the default routes
# (src/desktop-net.ts): connection attempts to literal IP addresses wait there and are recorded.
echo "guest-server-exec $EPOCHREALTIME" >>/run/osharm/start-phases
# shellcheck disable=SC2086
exec ${osharm_watch[@]+"${osharm_watch[@]}" server --} "$OSHARM_NODE" "$OSHARM_GUEST/dist/guest-server-bin.js" ${OSHARM_LISTEN:---socket /run/harness/guest.sock} \
  --token-file "$XDG_RUNTIME_DIR/osharm/token" --pyautogui system \
  ${agent_ns_pid:+--agent-ns-pid "$agent_ns_pid"} --recording-path "$XDG_RUNTIME_DIR/osharm/recording.mp4" \
  --record-socket "$OSHARM_RECORD_SOCKET" --record-dir "$OSHARM_RECORD_DIR" \
  ${OSHARM_DNS_LISTEN:+--dns-listen "$OSHARM_DNS_LISTEN"} ${OSHARM_DNS_FORWARD:+--dns-forward "$OSHARM_DNS_FORWARD"} \
  ${OSHARM_EGRESS_SINK:+--egress-sink "$OSHARM_EGRESS_SINK"} \
  ${OSHARM_SITE_HOSTS:+--site-hosts "${OSHARM_SITE_HOSTS// /,}"} \
  ${OSHARM_SERVER_ARGS:-}
