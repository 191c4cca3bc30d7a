#!/bin/bash
# osharm desktop: the agent's session, first process of the agent's namespace (guest/agent-ns.sh;
# its init is guest/agent-init.py). What starts here is on the agent's side: the session D-Bus (and
# everything it activates: terminals, the notification daemon, dconf, the accessibility bus), the
# window manager, and later every process of the agent's actions. (A desktop shell replacing
# openbox starts here too.) Writes "ready" to fd 6 once accessibility is on.
set -u
# The session bus at a fixed address, which the guest server's side also knows (sandbox-session.sh).
rm -f "${DBUS_SESSION_BUS_ADDRESS#unix:path=}"
dbus-daemon --session --nofork --nopidfile --address="$DBUS_SESSION_BUS_ADDRESS" >/dev/null 2>&1 &
for _ in $(seq 100); do
  [ -S "${DBUS_SESSION_BUS_ADDRESS#unix:path=}" ] && break
  sleep 0.05
done
gsettings set org.gnome.desktop.interface toolkit-accessibility true
# A dark grey desktop instead of X's black (a wallpaper can be set with change_wallpaper).
command -v xsetroot >/dev/null && xsetroot -solid '#2c2c2c'
openbox >/dev/null 2>&1 &
echo ready >&6
exec 6>&-
wait
