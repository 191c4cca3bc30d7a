#!/bin/bash
# osharm local desktop: bound over an account tool (adduser, useradd, userdel, …) in the mount
# namespace of the root services (as-root.sh). Records the call in the system log the harness reads
# (guest/system/system_log.py), then runs the real tool.
# adduser: only uid 0 is mapped in root's namespace, so adduser's `chown NEW_UID /home/NAME` fails
# (EINVAL) and it undoes everything; it runs with --no-create-home and the home is then made from
# /etc/skel here, owned by root of the namespace (the desktop user outside).
tool="${0##*/}"
/usr/bin/python3 -I -c 'import sys; sys.path.insert(0, "/opt/osharm/desktop-guest/guest/system")
from system_log import record
record("accounts", sys.argv[1], sys.argv[2:], "ran")' "$tool" "$@" 2>/dev/null
real="/run/osharm/root/real-tools/$tool"
if [ "$tool" != adduser ]; then
  exec "$real" "$@"
fi
name=
make_home=1
for argument in "$@"; do
  case "$argument" in
    --no-create-home | --system) make_home=0 ;;
    -*) ;;
    *) name="$argument" ;;
  esac
done
if [ "$make_home" = 0 ] || [ -z "$name" ]; then
  exec "$real" "$@"
fi
"$real" --no-create-home "$@" || exit
home="$(getent passwd "$name" | cut -d: -f6)"
if [ -n "$home" ] && [ ! -e "$home" ]; then
  # (-a would keep the skeleton's owner, the host's root, which is not mapped here)
  mkdir -p "$home" && cp -r --preserve=mode,timestamps /etc/skel/. "$home/" && chmod 0750 "$home"
fi
exit 0
