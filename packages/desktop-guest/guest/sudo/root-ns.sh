#!/bin/bash
# osharm local desktop: sets up the namespaces `sudo` and `su` run root commands in, then holds
# them (see common.sh). Runs as uid 0 of a new user namespace owned by the desktop user, in a new
# mount namespace copied from the sandbox's; nothing done here is visible outside that namespace.
# Usage: root-ns.sh READY_FIFO
set -eu
umask 022
trap 'echo "failed at line $LINENO" >"$1"' ERR
root_dir=/run/osharm/root
stash="$root_dir/host-etc"
mkdir -p "$stash"
# /etc as root sees it: a small writable tmpfs holding copies of the sandbox's top-level files
# (passwd, group, hosts, … — what useradd, chpasswd and editors change) and links to its
# directories, which stay read-only. The sandbox's /etc stays reachable (recursively, so its masks
# over the host's secrets stay in place) at $stash.
mount --rbind /etc "$stash"
mount -t tmpfs -o size=16m,mode=0755 osharm-etc /etc
shopt -s dotglob nullglob
# (Sorted here, then one cp or ln per kind: a fork per entry cost a second of the desktop's start,
# which waits for this through accounts-daemon.)
links=() files=() linked=()
for entry in "$stash"/*; do
  case "${entry##*/}" in
    passwd- | group- | shadow- | gshadow- | subuid- | subgid- | .pwd.lock | shadow | gshadow | sudoers) continue ;;
  esac
  if [ -L "$entry" ]; then
    links+=("$entry")
  elif [ -f "$entry" ]; then
    files+=("$entry")
  else
    linked+=("$entry")
  fi
done
[ ${#links[@]} -eq 0 ] || cp -P "${links[@]}" /etc/
[ ${#files[@]} -eq 0 ] || cp --preserve=mode,timestamps "${files[@]}" /etc/ 2>/dev/null || true
# A file that could not be copied (unreadable) is linked, as a directory is.
for entry in "${files[@]}"; do
  [ -e "/etc/${entry##*/}" ] || linked+=("$entry")
done
[ ${#linked[@]} -eq 0 ] || ln -s "${linked[@]}" /etc/
# The host's secrets stay masked: root's own shadow files, the user's password being `password`.
user_hash='$6$I5S.zJDMFrsx6.dH$0.ux6yugkEWQBQCbE.wpvPpssvGAPJqxx3Xmmbfpj1SK9V6D6HEijhOnjnrdLmXlDsw.ghAK8UnflNh8FobsY.'
printf 'root:*:20000:0:99999:7:::\nuser:%s:20000:0:99999:7:::\nnobody:*:20000:0:99999:7:::\n' "$user_hash" >/etc/shadow
awk -F: '{ print $1 ":*::" $4 }' /etc/group >/etc/gshadow
chmod 640 /etc/shadow /etc/gshadow
printf 'Defaults\tenv_reset\nDefaults\tmail_badpass\nDefaults\tsecure_path="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"\nDefaults\tuse_pty\nroot\tALL=(ALL:ALL) ALL\n%%sudo\tALL=(ALL:ALL) ALL\n@includedir /etc/sudoers.d\n' >/etc/sudoers
chmod 440 /etc/sudoers
for directory in ssh sudoers.d; do
  rm -f "/etc/$directory"
  mkdir -p "/etc/$directory"
done
# Root's home (the sandbox has an empty, inaccessible /root to mount it on).
if [ -d /root ]; then
  mount -t tmpfs -o size=64m,mode=0700 osharm-root /root
  cp -r /etc/skel/. /root/ 2>/dev/null || true
fi
# apt and dpkg take their locks on the read-only host tree: private lock files let apt-get read
# (`apt-get install` of a package the host has installed succeeds; anything else fails as
# documented).
mkdir -p "$root_dir/locks"
for lock in /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/cache/apt/archives/lock /var/lib/apt/lists/lock; do
  [ -f "$lock" ] || continue
  private="$root_dir/locks/${lock//\//_}"
  : >"$private"
  mount --bind "$private" "$lock"
done
cd /
echo ready >"$1"
exec sleep infinity
