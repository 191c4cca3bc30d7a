#!/bin/bash
# osharm local desktop: inside the sandbox's D-Bus session. Turns on accessibility, starts the window
# manager and runs the guest server (the sandbox ends when it exits).
set -u
gsettings set org.gnome.desktop.interface toolkit-accessibility true
# The sandbox's own system bus (GNOME Settings' Users panel, GNOME Disks): guest/system.
# shellcheck source=system/start-system-bus.sh
command -v dbus-daemon >/dev/null && . "$OSHARM_GUEST/guest/system/start-system-bus.sh"
# The shell: GNOME Shell as upstream's, or openbox (said and recorded): guest/shell.
# shellcheck source=shell/start-shell.sh
. "$OSHARM_GUEST/guest/shell/start-shell.sh"
# OSHARM_LISTEN: the container image listens on TCP instead (guest/container-entrypoint.sh).
# shellcheck disable=SC2086
exec "$OSHARM_NODE" "$OSHARM_GUEST/dist/guest-server-bin.js" ${OSHARM_LISTEN:---socket /run/harness/guest.sock} \
  --token-file "$XDG_RUNTIME_DIR/osharm/token" --pyautogui system ${OSHARM_SERVER_ARGS:-}
