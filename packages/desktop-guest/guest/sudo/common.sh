# shellcheck shell=bash
# osharm local desktop: what the sudo and su stand-ins share (sourced by guest/bin/sudo and guest/bin/su).
# The desktop user's password is `password`, as in upstream's VM (root-ns.sh writes its hash). "root" is uid 0 of a nested user
# namespace that the desktop user owns (see root-ns.sh and docs/packages/vm-local.md, "sudo"): it
# has capabilities only over that namespace's own resources, never over the sandbox's namespace
# where the guest server runs, nor over anything of the host.

osharm_run=/run/osharm
osharm_root_dir="$osharm_run/root"
osharm_lib=/opt/osharm/desktop-guest/guest/sudo
osharm_secure_path=/opt/osharm/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Appends one record to the attempt log (guest/system/records.py: through the guest server, which
# keeps it where the agent cannot rewrite it; read by the harness through the guest channel).
# Usage: osharm_log TOOL OUTCOME ARG...   (OUTCOME: granted, wrong-password, no-password,
# password-required, not-sudoer, unknown-user, unsupported-user, usage)
osharm_log() {
  local tty=0
  [ -t 0 ] && tty=1
  # (stdin is the terminal or not here; the program below reads itself from a here-document)
  /usr/bin/python3 - "/opt/osharm/desktop-guest/guest/system" "$PWD" "$tty" "$@" <<'PY' 2>/dev/null
import os, sys, time
sys.path.insert(0, sys.argv[1])
from records import send
cwd, tty, tool, outcome, argv = sys.argv[2], sys.argv[3] == "1", sys.argv[4], sys.argv[5], sys.argv[6:]
record = {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z", "tool": tool,
          "argv": [arg[:4096] for arg in argv][:256], "cwd": cwd[:4096], "uid": os.getuid(), "tty": tty,
          "outcome": outcome, "granted": outcome == "granted"}
send("sudo", record)
PY
}

# The credential cache key, as sudo's tty tickets: the controlling terminal and session, or the
# parent process when there is no terminal.
osharm_ticket() {
  local stat rest
  read -r stat </proc/$$/stat
  rest="${stat##*) }"
  # shellcheck disable=SC2086
  set -- $rest
  if [ "$5" != 0 ]; then echo "$osharm_run/sudo-ts/tty-$5-$4"; else echo "$osharm_run/sudo-ts/ppid-$2"; fi
}

# True while the caller's ticket is younger than 15 minutes (sudo's default timestamp_timeout).
osharm_ticket_valid() {
  local ticket
  ticket="$(osharm_ticket)"
  [ -f "$ticket" ] && [ -n "$(find "$ticket" -mmin -15 2>/dev/null)" ]
}

osharm_ticket_touch() {
  mkdir -p -m 700 "$osharm_run/sudo-ts" 2>/dev/null
  : >"$(osharm_ticket)" 2>/dev/null
}

# Reads one password line into REPLY. Usage: osharm_read_password PROMPT FROM_STDIN
# Returns 1 when no password came (end of input or timeout).
osharm_read_password() {
  if [ "$2" = 1 ]; then
    printf '%s' "$1" >&2
    IFS= read -r -t 60 REPLY || { echo >&2; return 1; }
    [ -t 0 ] && echo >&2
    return 0
  fi
  printf '%s' "$1" >/dev/tty
  IFS= read -r -s -t 300 REPLY </dev/tty || { echo >/dev/tty; return 1; }
  echo >/dev/tty
}

# The pid of the process holding the root namespaces, started on first use.
osharm_root_holder() {
  local pidfile="$osharm_root_dir/holder.pid" pid ns ready state
  mkdir -p -m 700 "$osharm_root_dir" || return 1
  exec 9>"$osharm_root_dir/lock" && flock 9 || return 1
  # The holder is known by its pid and its namespace (a reused pid does not match).
  read -r pid ns _ 2>/dev/null <"$pidfile"
  if [ -n "$pid" ] && [ -n "$ns" ] && [ "$(readlink "/proc/$pid/ns/user" 2>/dev/null)" = "$ns" ] &&
    [ "$ns" != "$(readlink /proc/self/ns/user)" ]; then
    exec 9>&-
    echo "$pid"
    return 0
  fi
  ready="$osharm_root_dir/ready.$$"
  rm -f "$ready" && mkfifo -m 600 "$ready" || return 1
  setsid unshare --user --map-root-user --mount --propagation private -- \
    /bin/bash "$osharm_lib/root-ns.sh" "$ready" </dev/null >/dev/null 2>"$osharm_root_dir/setup.log" 9>&- &
  pid=$!
  exec 8<>"$ready"
  if ! read -r -t 20 state <&8 || [ "$state" != ready ]; then
    exec 8<&-
    rm -f "$ready"
    kill -9 "$pid" 2>/dev/null
    echo "sudo: could not set up root: $(tail -n 3 "$osharm_root_dir/setup.log" 2>/dev/null)" >&2
    return 1
  fi
  exec 8<&-
  rm -f "$ready"
  echo "$pid $(readlink "/proc/$pid/ns/user")" >"$pidfile"
  exec 9>&-
  echo "$pid"
}

# Runs a command as root (replaces this process). Usage: osharm_as_root LOGIN(0|1) CMD...
# The environment is reset as sudo's env_reset does; LOGIN=1 starts in root's home.
osharm_as_root() {
  local login="$1" holder wd="$PWD"
  shift
  local -a enter=()
  if ! osharm_is_root; then
    holder="$(osharm_root_holder)" || exit 1
    enter=(nsenter --target "$holder" --user --mount --preserve-credentials --wd="$wd" --)
  fi
  # nsenter opens the directory before it enters the namespaces, where /root cannot be opened.
  if [ "$login" = 1 ]; then
    [ ${#enter[@]} -gt 0 ] && enter[-2]=--wd=/
    set -- /bin/sh -c 'cd /root && exec "$@"' sh "$@"
  fi
  local -a keep=()
  for name in DISPLAY XAUTHORITY TERM COLORTERM LANG LANGUAGE LC_ALL LC_CTYPE LC_MESSAGES \
    XDG_RUNTIME_DIR DBUS_SESSION_BUS_ADDRESS; do
    [ -n "${!name+x}" ] && keep+=("$name=${!name}")
  done
  exec "${enter[@]}" /usr/bin/env -i "${keep[@]}" HOME=/root USER=root LOGNAME=root SHELL=/bin/bash MAIL=/var/mail/root \
    PATH="$osharm_secure_path" SUDO_USER="${OSHARM_SUDO_USER:-user}" SUDO_UID=1000 SUDO_GID=1000 \
    SUDO_COMMAND="$*" "$@"
}

# Asks guest/sudo/account.py about USER in root's view of /etc (the namespace is started first, so
# that what root changed there — useradd, passwd, deluser, sudoers — counts as on upstream's VM).
# Usage: osharm_account USER check|sudoer|password   (password: the typed line on stdin)
osharm_account() {
  local etc=/etc holder
  # Called on the server's side (the polkit stand-in): ask from inside the agent's namespace.
  if osharm_outside_agent_ns; then
    osharm_in_agent_ns /bin/bash -c '. "$0/common.sh"; osharm_account "$@"' "$osharm_lib" "$@"
    return
  fi
  if ! osharm_is_root; then
    holder="$(osharm_root_holder)" || return 1
    etc="/proc/$holder/root/etc"
  fi
  /usr/bin/python3 -W ignore "$osharm_lib/account.py" "$etc" "$@"
}

# True on the server's side of a desktop with an agent namespace (guest/agent-ns.sh): root's
# namespace is the agent namespace's (holder.pid names a pid there), so what needs it must enter
# first. Inside the agent's namespace OSHARM_AGENT_NS_PID names another process or none: false.
osharm_outside_agent_ns() {
  local agent_ns
  [ -n "${OSHARM_AGENT_NS_PID:-}" ] || return 1
  agent_ns="$(readlink "/proc/$OSHARM_AGENT_NS_PID/ns/pid" 2>/dev/null)"
  [ -n "$agent_ns" ] && [ "$(readlink /proc/self/ns/pid)" != "$agent_ns" ]
}

# Runs CMD... inside the agent's namespace (the variable cleared there). Usage: osharm_in_agent_ns CMD...
osharm_in_agent_ns() {
  OSHARM_AGENT_NS_PID='' nsenter --target "$OSHARM_AGENT_NS_PID" --user --pid --mount \
    --preserve-credentials --wd=/ -- "$@"
}

# True when this process already is root of the nested namespace.
osharm_is_root() { [ "$(id -u)" = 0 ]; }
