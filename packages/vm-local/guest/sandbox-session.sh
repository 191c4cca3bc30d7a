#!/bin/bash
# osharm local desktop: inside the sandbox's D-Bus session. Turns on accessibility, starts the window
# manager and runs the guest server (the sandbox ends when it exits).
set -u
gsettings set org.gnome.desktop.interface toolkit-accessibility true
# A dark grey desktop instead of X's black (a wallpaper can be set with change_wallpaper).
command -v xsetroot >/dev/null && xsetroot -solid '#2c2c2c'
# The sandbox's own system bus (GNOME Settings' Users panel, GNOME Disks): guest/system.
# shellcheck source=system/start-system-bus.sh
command -v dbus-daemon >/dev/null && . "$OSHARM_GUEST/guest/system/start-system-bus.sh"
openbox >"$XDG_RUNTIME_DIR/osharm/openbox.log" 2>&1 &
# OSHARM_LISTEN: the container image listens on TCP instead (guest/container-entrypoint.sh).
# shellcheck disable=SC2086
exec "$OSHARM_NODE" "$OSHARM_GUEST/dist/guest-server-bin.js" ${OSHARM_LISTEN:---socket /run/harness/guest.sock} \
  --token-file "$XDG_RUNTIME_DIR/osharm/token" --pyautogui system ${OSHARM_SERVER_ARGS:-}
