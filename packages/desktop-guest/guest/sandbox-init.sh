#!/bin/bash
# osharm local desktop: the first process inside the bubblewrap sandbox (see src/local-sandbox.ts).
# Starts Xvfb, seeds the fresh home, then hands over to sandbox-session.sh (the guest server's side).
# Environment from the provider: OSHARM_GUEST (package dir), OSHARM_NODE, OSHARM_SCREEN (WxHxD),
# OSHARM_SERVER_ARGS; /run/harness/.token and .env (see local-sandbox.ts).
set -u
umask 022
export HOME=/home/user USER=user LOGNAME=user SHELL=/bin/bash
export XDG_RUNTIME_DIR=/run/user/1000 DISPLAY=:0
# Accessibility for every toolkit; exported before the D-Bus session so activated services
# (gnome-terminal-server, dconf) get it too.
export GTK_MODULES=gail:atk-bridge SAL_USE_VCLPLUGIN=gtk3 QT_ACCESSIBILITY=1 QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1
unset NO_AT_BRIDGE
mkdir -p -m 700 "$XDG_RUNTIME_DIR/osharm" /run/osharm
# Start-up phases, one "name epoch-seconds" line each (bench/shell-bench.ts prints them).
echo "sandbox $EPOCHREALTIME" >>/run/osharm/start-phases
# The append-only records (src/guest-record-log.ts): the writers' socket in a directory the agent's
# namespace sees read-only, the files in one it does not see.
mkdir -p -m 755 /run/osharm-log
export OSHARM_RECORD_SOCKET=/run/osharm-log/record.sock OSHARM_RECORD_DIR="$XDG_RUNTIME_DIR/osharm/records"
# The host leaves the token and the caller's extra environment in private files (never on bwrap's
# command line, which every host user can read). The token goes on to the guest server only, not
# into the environment applications (and the agent's shells) inherit.
# (The container image's entrypoint writes it there itself: guest/container-entrypoint.sh.)
[ -f /run/harness/.token ] && mv /run/harness/.token "$XDG_RUNTIME_DIR/osharm/token"
chmod 600 "$XDG_RUNTIME_DIR/osharm/token"
if [ -f /run/harness/.env ]; then
  # shellcheck disable=SC1091
  . /run/harness/.env
  rm -f /run/harness/.env
fi

fifo="$XDG_RUNTIME_DIR/osharm/xready"
mkfifo "$fifo"
# shellcheck source=shell/choose-shell.sh
. "$OSHARM_GUEST/guest/shell/choose-shell.sh"
Xvfb :0 -screen 0 "${OSHARM_SCREEN:-1920x1080x24}" -nolisten tcp -noreset "$osharm_xvfb_glx" GLX -displayfd 3 \
  3>"$fifo" >"$XDG_RUNTIME_DIR/osharm/xvfb.log" 2>&1 &

cd "$HOME" || exit 1
mkdir -p Desktop Documents Downloads Music Pictures Public Templates Videos \
  .config/libreoffice/4/user .config/openbox .cache .local/share
cp "$OSHARM_GUEST/guest/config/registrymodifications.xcu" .config/libreoffice/4/user/
# Debian's openbox configuration plus Ubuntu's Ctrl+Alt+T for a terminal, on a single desktop, with
# application windows opening maximized as in upstream's VM snapshot (terminals keep their size).
sed -e 's#</keyboard>#<keybind key="C-A-t"><action name="Execute"><command>gnome-terminal</command></action></keybind></keyboard>#' \
  -e 's#<number>4</number>#<number>1</number>#' \
  -e 's#</applications>#<application type="normal"><maximized>yes</maximized></application><application class="Gnome-terminal"><maximized>no</maximized></application><application class="XTerm"><maximized>no</maximized></application></applications>#' \
  /etc/xdg/openbox/rc.xml >.config/openbox/rc.xml 2>/dev/null

# A notification daemon, started by D-Bus on the first notification (notify-send waits for it):
# bubbles on top of the windows, readable in the accessibility tree, as upstream's GNOME has.
if [ -x /usr/lib/notification-daemon/notification-daemon ]; then
  mkdir -p .local/share/dbus-1/services
  printf '[D-BUS Service]\nName=org.freedesktop.Notifications\nExec=/usr/lib/notification-daemon/notification-daemon\n' \
    >.local/share/dbus-1/services/org.freedesktop.Notifications.service
fi

# Firefox, when installed, is the desktop's web browser for links (Thunderbird's among them), as on
# upstream's Ubuntu VM; Chromium stays what the tasks start by name (google-chrome). Its entry is
# named as upstream's dock names it and starts the firefox-esr shim (guest/bin: its profile).
if [ -f /usr/share/applications/firefox-esr.desktop ]; then
  mkdir -p .local/share/applications
  sed -e 's/^Name=Firefox ESR$/Name=Firefox/' -e 's#^Exec=/usr/lib/firefox-esr/firefox-esr#Exec=firefox-esr#' \
    /usr/share/applications/firefox-esr.desktop >.local/share/applications/firefox-esr.desktop
  printf '[Default Applications]\nx-scheme-handler/http=firefox-esr.desktop\nx-scheme-handler/https=firefox-esr.desktop\n' \
    >.config/mimeapps.list
fi

# Upstream's web addresses over HTTPS, with this desktop's own certificate authority (site-tls.sh).
# shellcheck source=site-tls.sh
. "$OSHARM_GUEST/guest/site-tls.sh"
osharm_site_tls &
site_tls=$!
# GNOME Shell's settings (its dconf database, the dock's desktop entries) meanwhile too.
shell_settings=""
if [ "$OSHARM_DESKTOP_SHELL" = gnome-shell ]; then
  # shellcheck source=shell/start-shell.sh
  OSHARM_SHELL_SETTINGS_ONLY=1 . "$OSHARM_GUEST/guest/shell/start-shell.sh"
  osharm_gnome_shell_settings_now &
  shell_settings=$!
fi

if ! read -r -t 20 _ <"$fifo"; then
  echo "osharm: Xvfb did not start:" >&2
  cat "$XDG_RUNTIME_DIR/osharm/xvfb.log" >&2
  exit 1
fi
echo "xvfb $EPOCHREALTIME" >>/run/osharm/start-phases
wait "$site_tls"
[ -z "$shell_settings" ] || wait "$shell_settings"
echo "site-tls $EPOCHREALTIME" >>/run/osharm/start-phases
# The guest server's side goes on there (its session D-Bus is the agent's: agent-session.sh).
exec /bin/bash "$OSHARM_GUEST/guest/sandbox-session.sh"
