# shellcheck shell=bash
# osharm desktop: the boundary between the guest server's side and the agent's (sourced by
# sandbox-session.sh; docs/packages/vm-local.md "Security model"). The agent's side is a nested
# user, pid and mount namespace made by bubblewrap:
# - pid: the agent's processes see only each other; the guest server, its helpers, Xvfb, the
#   system bus and the sandbox's init have no pid there, so `kill -9 -1` (also as sudo's root),
#   ptrace and /proc reach none of them. Its init (agent-init.py) ignores what the namespace sends it.
# - user: uid 1000 as before, no capabilities; the server's side owns the namespace (it may enter
#   it: nsenter, guest-process.ts), nothing in it can enter back.
# - mount: the same tree, except the server's private directories, masked by empty read-only
#   mounts the agent cannot remove ($XDG_RUNTIME_DIR/osharm: the token, the recording, logs;
#   /run/harness: the guest server's socket); /run/osharm-log (the record socket) is read-only.
# Sets agent_ns_pid (the init's pid here), or leaves it empty and says why when the namespace could
# not be made (a container engine refusing user namespaces): the desktop then runs without the
# boundary, as before.
# A new helper of the server's side: start it in sandbox-session.sh before this file is sourced
# (it is then outside the agent's namespace); an agent-side program: in agent-session.sh.
agent_ns_pid=""
agent_ns_dir="$XDG_RUNTIME_DIR/osharm"
agent_masks=(--tmpfs "$agent_ns_dir" --remount-ro "$agent_ns_dir")
[ -d /run/harness ] && agent_masks+=(--tmpfs /run/harness --remount-ro /run/harness)
# The record socket's directory: connectable, never removed or replaced (src/guest-record-log.ts).
[ -d /run/osharm-log ] && agent_masks+=(--ro-bind /run/osharm-log /run/osharm-log)
rm -f "$agent_ns_dir/agent-ready" && mkfifo -m 600 "$agent_ns_dir/agent-ready"
exec 7<>"$agent_ns_dir/agent-ready"
# (osharm_watch: sandbox-session.sh's exec watch; the agent's whole namespace runs under its filter.)
${osharm_watch[@]+"${osharm_watch[@]}" agent --} bwrap --bind / / --dev-bind /dev /dev --proc /proc "${agent_masks[@]}" \
  --unshare-user --uid "$(id -u)" --gid "$(id -g)" --unshare-pid --as-pid-1 --die-with-parent \
  --info-fd 5 -- /usr/bin/python3 "$OSHARM_GUEST/guest/agent-init.py" \
  /bin/bash "$OSHARM_GUEST/guest/agent-session.sh" \
  5>"$agent_ns_dir/agent-ns.json" 6>"$agent_ns_dir/agent-ready" 7<&- \
  </dev/null >/dev/null 2>"$agent_ns_dir/agent-ns.log" &
agent_ns_bwrap=$!
# Ready within 20 s, unless bwrap gave up first (then at once).
for _ in $(seq 200); do
  if read -r -t 0.1 _ <&7; then
    agent_ns_pid="$(sed -n 's/.*"child-pid": *\([0-9]*\).*/\1/p' "$agent_ns_dir/agent-ns.json")"
    break
  fi
  kill -0 "$agent_ns_bwrap" 2>/dev/null || break
done
if [ -z "$agent_ns_pid" ]; then
  echo "osharm: the agent's namespace could not be made; the agent's processes run beside the guest server:" >&2
  cat "$agent_ns_dir/agent-ns.log" >&2
  # The agent's session still starts (session bus, accessibility, window manager), here.
  /bin/bash "$OSHARM_GUEST/guest/agent-session.sh" 6>"$agent_ns_dir/agent-ready" 7<&- \
    </dev/null >/dev/null 2>&1 &
  read -r -t 20 _ <&7
fi
exec 7<&-
rm -f "$agent_ns_dir/agent-ready"
