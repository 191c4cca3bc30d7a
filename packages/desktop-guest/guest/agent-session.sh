#!/bin/bash
# osharm desktop: the agent's session, first process of the agent's namespace (guest/agent-ns.sh;
# its init is guest/agent-init.py). What starts here is on the agent's side: the session D-Bus (and
# everything it activates: terminals, notifications, dconf, the accessibility bus), the desktop's
# shell (GNOME Shell or openbox: guest/shell) and later every process of the agent's actions and
# of the shell's launchers. Writes "ready" to fd 6 once accessibility is on.
set -u
# The session bus at a fixed address, which the guest server's side also knows (sandbox-session.sh).
rm -f "${DBUS_SESSION_BUS_ADDRESS#unix:path=}"
dbus-daemon --session --nofork --nopidfile --address="$DBUS_SESSION_BUS_ADDRESS" >/dev/null 2>&1 &
for _ in $(seq 100); do
  [ -S "${DBUS_SESSION_BUS_ADDRESS#unix:path=}" ] && break
  sleep 0.05
done
echo "session-bus $EPOCHREALTIME" >>/run/osharm/start-phases
gsettings set org.gnome.desktop.interface toolkit-accessibility true
echo "a11y-setting $EPOCHREALTIME" >>/run/osharm/start-phases
echo ready >&6
exec 6>&-
# The shell waits for the sandbox's system bus (the server's side starts it once this namespace is
# ready) and records which shell runs in /run/osharm/shell.json, which the server's side waits for.
# shellcheck source=shell/start-shell.sh
. "$OSHARM_GUEST/guest/shell/start-shell.sh"
wait
