#!/bin/bash
# osharm local desktop: the sandbox's own system D-Bus (sourced by sandbox-session.sh). A
# dbus-daemon with guest/system/system-bus.conf on the usual socket, /run/dbus/system_bus_socket
# (/run is the sandbox's tmpfs), which starts its services on first use: accounts-daemon as root of
# the desktop's nested user namespace, the polkit stand-in and the UDisks2 stand-in. And logind's
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
