#!/bin/bash
# osharm local desktop: the sandbox's own system D-Bus (sourced by sandbox-session.sh). A
# dbus-daemon with guest/system/system-bus.conf on the usual socket, /run/dbus/system_bus_socket
# (/run is the sandbox's tmpfs), which starts its services: accounts-daemon (on first use) as root of
# the desktop's nested user namespace, the polkit and UDisks2 stand-ins (at once, below). And logind's
# records of the desktop's one graphical session (sd-login reads these files; no logind runs), so
# that libaccountsservice finds the session and seat as on upstream's VM.
mkdir -p /run/dbus /run/systemd/users /run/systemd/sessions
printf 'NAME=user\nSTATE=active\nSESSIONS=1\nSEATS=seat0\nACTIVE_SESSIONS=1\nONLINE_SESSIONS=1\nDISPLAY=1\n' \
  >/run/systemd/users/1000
printf 'UID=1000\nUSER=user\nACTIVE=1\nIS_DISPLAY=1\nSTATE=active\nREMOTE=0\nTYPE=x11\nORIGINAL_TYPE=x11\nCLASS=user\nSEAT=seat0\nDISPLAY=%s\nVTNR=2\n' \
  "${DISPLAY:-:0}" >/run/systemd/sessions/1
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
dbus-daemon --nofork --config-file="$OSHARM_GUEST/guest/system/system-bus.conf" \
  >"$XDG_RUNTIME_DIR/osharm/system-bus.log" 2>&1 &
# The polkit and UDisks2 stand-ins own their names from the start (activated now, on the server's
# side, in the background): a name the bus would activate on first use is one any process of the
# desktop user could claim first (the policy cannot tell the agent from the services: one uid) —
# an agent owning org.freedesktop.PolicyKit1 would answer accounts-daemon's authorization checks.
(
  for _ in $(seq 100); do
    [ -S /run/dbus/system_bus_socket ] && break
    sleep 0.05
  done
  # accounts-daemon too: GNOME Shell waits for it at start (its user manager's proxy), and its
  # start (root's namespace first: guest/sudo/root-ns.sh) then overlaps the shell's own.
  for name in org.freedesktop.PolicyKit1 org.freedesktop.UDisks2 org.freedesktop.Accounts; do
    dbus-send --system --print-reply --dest=org.freedesktop.DBus / \
      org.freedesktop.DBus.StartServiceByName "string:$name" uint32:0 >/dev/null 2>&1 &
  done
  wait
) &
