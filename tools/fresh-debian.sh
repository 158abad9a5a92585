#!/usr/bin/env bash
# Run a command as a newcomer would on a fresh Debian 12: a minimal root (mmdebstrap --variant=apt with only
# python3, python3-venv, make, git and CA certificates), a clone of this checkout in it, and the command
# run there through chroot. Usage: tools/fresh-debian.sh make test
# The root gets this machine's package-client settings (apt sources and options, pip and npm settings, CA
# certificates), so the registries are reached as this machine reaches them; nothing else is copied in.
# Needs root on a Debian host (mmdebstrap is installed when missing). The root is removed afterwards.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: tools/fresh-debian.sh COMMAND [ARG...]" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "fresh-debian: needs root (mmdebstrap, mount, chroot)" >&2; exit 2; }
checkout="$(cd "$(dirname "$0")/.." && pwd)"

command -v mmdebstrap >/dev/null 2>&1 || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
}

root="$(mktemp -d /tmp/fresh-debian.XXXXXX)"
mounted=()
cleanup() {
  local index
  for ((index = ${#mounted[@]} - 1; index >= 0; index--)); do
    umount --lazy "${mounted[index]}" 2>/dev/null || true
  done
  # Only after every mount point is gone: a bind mount still there would let rm reach the host's /dev.
  if ! grep -q " $root/" /proc/self/mounts; then rm -rf "$root"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

sources=/etc/apt/sources.list.d/debian.sources
[ -f "$sources" ] || sources=/etc/apt/sources.list
echo "fresh-debian: building a minimal Debian 12 root in $root"
mmdebstrap --quiet --variant=apt --include=python3,python3-venv,make,git,ca-certificates \
  bookworm "$root" "$sources"

# The package clients' settings, as this machine has them.
cp -a /etc/apt/apt.conf.d/. "$root/etc/apt/apt.conf.d/"
[ -d /etc/apt/auth.conf.d ] && cp -a /etc/apt/auth.conf.d/. "$root/etc/apt/auth.conf.d/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
[ -f /etc/hosts ] && cp /etc/hosts "$root/etc/hosts"
cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$root/etc/pip.conf"
mkdir -p "$root/root"
[ -f "$HOME/.npmrc" ] && cp "$HOME/.npmrc" "$root/root/.npmrc"

# HEAD, or HEAD with the tracked files' uncommitted changes (a developer's trial before committing).
git clone --quiet "$checkout" "$root/root/atencion"
work_in_progress="$(git -C "$checkout" stash create)"
if [ -n "$work_in_progress" ]; then
  git -C "$root/root/atencion" fetch --quiet "$checkout" "$work_in_progress"
  git -C "$root/root/atencion" checkout --quiet --detach FETCH_HEAD
fi

for filesystem in proc sys dev dev/pts dev/shm; do
  mkdir -p "$root/$filesystem"
  case "$filesystem" in
    proc) mount -t proc proc "$root/proc" ;;
    sys) mount -t sysfs sysfs "$root/sys" ;;
    dev/shm) mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm" ;;
    *) mount --bind "/$filesystem" "$root/$filesystem" ;;
  esac
  mounted+=("$root/$filesystem")
done

echo "fresh-debian: running '$*' in a clone of ${work_in_progress:+the uncommitted changes on }HEAD"
status=0
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  CI="${CI:-}" TERM="${TERM:-dumb}" bash -c 'cd /root/atencion && "$@"' fresh-debian "$@" || status=$?
exit "$status"
