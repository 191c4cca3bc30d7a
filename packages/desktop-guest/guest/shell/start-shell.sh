#!/bin/bash
# osharm desktop: starts the desktop's shell (sourced by agent-session.sh, on the agent's side, once
# its session bus runs; it waits for the sandbox's system bus; choose-shell.sh picked it). GNOME Shell 43 laid out as upstream's Ubuntu VM (dock,
# favourites, the home folder's icon, maximised windows; settings in gnome-shell.dconf, the
# favourites in favorites.tsv, the rest in the osharm-desktop extension), waited for until its
# start-up is over. When it cannot start, the desktop says so on stderr and runs openbox instead.
# Either way /run/osharm/shell.json records which shell runs and why; the host reads it once the
# desktop is up (src/desktop-shell.ts) and the run's fidelity.json carries it.
# OSHARM_SHELL_START_TIMEOUT_S (from the host: part of its start timeout): how long GNOME Shell
# may take to start. OSHARM_GNOME_SHELL (tests): the program to run instead, e.g. one that fails.

osharm_shell_dir="$OSHARM_GUEST/guest/shell"
# The shell runs on the agent's side (agent-session.sh), where $XDG_RUNTIME_DIR/osharm is read-only:
# its log and start-up marker live in a directory of its own.
osharm_shell_state="$XDG_RUNTIME_DIR/osharm-shell"
mkdir -p "$osharm_shell_state"

# Writes the desktop file of each favourite the dock lists and loads the shell's settings.
osharm_gnome_shell_settings() {
  local apps="$HOME/.local/share/applications" id name command icon entry directory favorites=""
  local services="$HOME/.local/share/dbus-1/services"
  mkdir -p "$apps" "$HOME/.local/share/gnome-shell/extensions" "$services"
  # Services the shell or the desktop icons start that show nothing on this desktop and cost CPU
  # and memory at every start (a user service file comes before the system's): the calendar's
  # data servers (no accounts, no events), the file indexer, the screencast service and the
  # volume monitors of phones, cameras and online accounts (no devices in a sandbox).
  for id in org.gnome.evolution.dataserver.Sources5 org.gnome.evolution.dataserver.Calendar8 \
    org.gnome.evolution.dataserver.AddressBook10 org.gnome.evolution.dataserver.UserPrompter0 \
    org.freedesktop.Tracker3.Miner.Files org.gnome.Shell.Screencast org.gtk.vfs.GoaVolumeMonitor \
    org.gtk.vfs.GPhoto2VolumeMonitor org.gtk.vfs.MTPVolumeMonitor org.gtk.vfs.AfcVolumeMonitor; do
    printf '[D-BUS Service]\nName=%s\nExec=/bin/false\n' "$id" >"$services/$id.service"
  done
  cp -r "$osharm_shell_dir/osharm-desktop@osharm.local" "$HOME/.local/share/gnome-shell/extensions/"
  # Without GDM the shell warns once that the screen cannot lock; upstream's VM shows no such banner.
  : >"$HOME/.local/share/gnome-shell/lock-warning-shown"
  while IFS=$'\t' read -r id name command icon wm_class; do
    case "$id" in '' | '#'*) continue ;; esac
    favorites="${favorites:+$favorites, }'$id'"
    entry=""
    for directory in /usr/local/share/applications /usr/share/applications; do
      [ -f "$directory/$id" ] && entry="$directory/$id" && break
    done
    if [ -z "$entry" ]; then
      # GLib hides an entry whose program is missing: such a launcher says so instead.
      command -v "${command%% *}" >/dev/null ||
        command="notify-send -- \"$name\" \"is not installed on this desktop\""
      printf '[Desktop Entry]\nType=Application\nName=%s\nExec=%s\nIcon=%s\n' "$name" "$command" "$icon" >"$apps/$id"
    elif ! grep -qx "Name=$name" "$entry" || [ -n "$wm_class" ]; then
      sed "0,/^Name=.*/s//Name=$name/" "$entry" >"$apps/$id"
    fi
    if [ -n "$wm_class" ]; then
      sed -i -e '/^StartupWMClass=/d' -e "0,/^\[Desktop Entry\]$/s//[Desktop Entry]\nStartupWMClass=$wm_class/" "$apps/$id"
    fi
  done <"$osharm_shell_dir/favorites.tsv"
  # Compiled straight into the user's database (dconf's own format; no D-Bus round trip, so this
  # runs before the session bus exists: sandbox-init.sh, while Xvfb starts).
  local keys="$osharm_shell_state/dconf-keys"
  mkdir -p "$keys" "$HOME/.config/dconf"
  sed -e "/^\[org\/gnome\/shell\]$/a favorite-apps=[$favorites]" -e "s#@SHELL_DIR@#$osharm_shell_dir#g" \
    "$osharm_shell_dir/gnome-shell.dconf" >"$keys/osharm"
  dconf compile "$HOME/.config/dconf/user" "$keys" && rm -rf "$keys"
}

# Writes the settings and records the outcome (settings.done, or settings.failed with the error).
osharm_gnome_shell_settings_now() {
  if osharm_gnome_shell_settings 2>>"$osharm_shell_state/gnome-shell.log"; then
    : >"$osharm_shell_state/settings.done"
    echo "shell-settings-written $EPOCHREALTIME" >>/run/osharm/start-phases
  else
    tail -n 2 "$osharm_shell_state/gnome-shell.log" >"$osharm_shell_state/settings.failed"
  fi
}
# sandbox-init.sh sources this file with OSHARM_SHELL_SETTINGS_ONLY=1 for the two functions above.
if [ -n "${OSHARM_SHELL_SETTINGS_ONLY:-}" ]; then return 0; fi

# Starts GNOME Shell and waits for the extension's start-up marker; returns 1 with
# OSHARM_SHELL_FALLBACK set when the shell exits or does not finish in time.
osharm_start_gnome_shell() {
  local log="$osharm_shell_state/gnome-shell.log" ready="$osharm_shell_state/shell-ready"
  local pid ticks=0 status started=$SECONDS limit="${OSHARM_SHELL_START_TIMEOUT_S:-45}"
  # Written while Xvfb started (sandbox-init.sh); here when that did not run.
  if [ ! -f "$osharm_shell_state/settings.done" ] && [ ! -f "$osharm_shell_state/settings.failed" ]; then
    osharm_gnome_shell_settings_now
  fi
  if [ -f "$osharm_shell_state/settings.failed" ]; then
    OSHARM_SHELL_FALLBACK="its settings could not be written: $(tr '\n' ' ' <"$osharm_shell_state/settings.failed")"
    return 1
  fi
  echo "shell-settings $EPOCHREALTIME" >>/run/osharm/start-phases
  # The shell aborts without a system bus (its power and login proxies): wait for the sandbox's.
  while [ ! -S /run/dbus/system_bus_socket ] && [ "$ticks" -lt 400 ]; do
    sleep 0.05
    ticks=$((ticks + 1))
  done
  # Without GTK_MODULES: the shell exposes itself to AT-SPI through its own bridge (Cally).
  # Its own process group: a shell given up on goes with what it started (input method, desktop icons).
  setsid env -u GTK_MODULES LIBGL_ALWAYS_SOFTWARE=1 "${OSHARM_GNOME_SHELL:-gnome-shell}" --x11 --sm-disable >>"$log" 2>&1 &
  pid=$!
  echo "gnome-shell-spawn $EPOCHREALTIME" >>/run/osharm/start-phases
  while [ ! -f "$ready" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid"
      status=$?
      OSHARM_SHELL_FALLBACK="gnome-shell exited with status $status during start-up: $(tail -n 3 "$log" | tr '\n' ' ')"
      return 1
    fi
    if [ $((SECONDS - started)) -ge "$limit" ]; then
      kill -9 -- "-$pid" 2>/dev/null
      OSHARM_SHELL_FALLBACK="gnome-shell did not finish starting within $limit s: $(tail -n 3 "$log" | tr '\n' ' ')"
      return 1
    fi
    sleep 0.05
  done
  cat "$osharm_shell_state/shell-phases" >>/run/osharm/start-phases 2>/dev/null
  echo "shell-ready-seen $EPOCHREALTIME" >>/run/osharm/start-phases
  osharm_gnome_shell_keys
}

# Presses the extension's probe shortcut (through XTest, as pyautogui does) until the shell reports it
# (keys-ready): the X server's switch to XTest's keyboard, during which mutter grabs its shortcuts
# again and a shortcut pressed is lost, is then over before the agent's first key (extension.js PROBE).
osharm_gnome_shell_keys() {
  local keys_ready="$osharm_shell_state/keys-ready" tries=0
  if ! command -v xdotool >/dev/null; then
    echo "osharm: xdotool is missing: GNOME Shell's probe shortcut was not pressed; a shortcut the agent presses first may be lost" >&2
    return 0
  fi
  while [ ! -f "$keys_ready" ] && [ "$tries" -lt 40 ]; do
    xdotool key ctrl+alt+shift+super+F12 2>>"$osharm_shell_state/gnome-shell.log"
    for _ in 1 2 3 4 5; do
      [ -f "$keys_ready" ] && break
      sleep 0.05
    done
    tries=$((tries + 1))
  done
  if [ -f "$keys_ready" ]; then
    echo "shell-keys-ready $EPOCHREALTIME" >>/run/osharm/start-phases
  else
    echo "osharm: GNOME Shell did not report its probe shortcut in $tries presses: a shortcut the agent presses first may be lost" >&2
  fi
}

osharm_shell_started=$(date +%s%3N)
export XDG_CURRENT_DESKTOP=ubuntu:GNOME XDG_SESSION_TYPE=x11 XDG_SESSION_DESKTOP=ubuntu
# GNOME Shell starts IBus when it is installed; GTK applications would then type through it, and
# IBus drops the keysyms pyautogui's XTest typing maps onto spare keycodes for a moment (é, ü…).
# Applications keep GTK's own input method, as on the openbox desktop.
export GTK_IM_MODULE=gtk-im-context-simple
if [ "$OSHARM_DESKTOP_SHELL" = gnome-shell ] && ! osharm_start_gnome_shell; then
  OSHARM_DESKTOP_SHELL=openbox
fi
if [ "$OSHARM_DESKTOP_SHELL" = openbox ]; then
  export XDG_CURRENT_DESKTOP=openbox XDG_SESSION_DESKTOP=openbox
  # A dark grey desktop instead of X's black (a wallpaper can be set with change_wallpaper).
  # The arrow on the root window too: a GNOME Shell given up on leaves an invisible one behind.
  command -v xsetroot >/dev/null && xsetroot -solid '#2c2c2c' -cursor_name left_ptr
  openbox >"$osharm_shell_state/openbox.log" 2>&1 &
fi
if [ -n "$OSHARM_SHELL_FALLBACK" ]; then
  echo "osharm: GNOME Shell is not this desktop's shell ($OSHARM_SHELL_FALLBACK); it runs openbox instead" >&2
fi
# JSON strings: backslashes and quotes escaped, control characters dropped.
osharm_json() { printf '"%s"' "$(printf '%s' "$1" | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g')"; }
printf '{"shell":%s,"requested":%s,"fallback":%s,"start_ms":%s}\n' "$(osharm_json "$OSHARM_DESKTOP_SHELL")" \
  "$(osharm_json "$OSHARM_SHELL_REQUESTED")" \
  "$([ -n "$OSHARM_SHELL_FALLBACK" ] && osharm_json "$OSHARM_SHELL_FALLBACK" || echo null)" \
  "$(($(date +%s%3N) - osharm_shell_started))" >/run/osharm/shell.json
unset -f osharm_gnome_shell_settings osharm_gnome_shell_settings_now osharm_start_gnome_shell osharm_gnome_shell_keys osharm_json
unset osharm_shell_dir osharm_shell_started osharm_shell_state
