# Shared by the package and systemd tests: a minimal Debian 12 tree
# (debootstrap, built once per build directory by debian_root.sh) and
# throw-away copies of it that a test installs into, boots and drops.
# Everything runs inside that tree: the machine's own root file system is
# never touched, and systemd is only ever booted in the copy.

# tree_up BASE DIR: DIR/root becomes a writable view of BASE (an overlay;
# a full copy where overlayfs is not available).
tree_up() {
  local base=$1 dir=$2
  mkdir -p "$dir/root" "$dir/upper" "$dir/work"
  if ! mount -t overlay overlay -o "lowerdir=$base,upperdir=$dir/upper,workdir=$dir/work" "$dir/root" 2>/dev/null; then
    cp -a "$base/." "$dir/root/"
  fi
}

# tree_machine DIR: the machine name systemd-nspawn gives the tree.
tree_machine() { echo "smsupd-$(basename "$1" | tr -c 'a-zA-Z0-9\n' -)"; }

# tree_down DIR: unmounts and removes what tree_up made, and the directory
# systemd-nspawn leaves in /run for the machine's mount propagation.
tree_down() {
  local dir=$1
  mountpoint -q "$dir/root" && umount -l "$dir/root"
  rm -rf "$dir" "/run/systemd/nspawn/propagate/$(tree_machine "$dir")"
}

# in_tree DIR CMD...: CMD inside the tree, not booted (systemd-nspawn as a
# chroot with /proc, /sys and /dev; the host's network for apt).
in_tree() {
  local dir=$1
  shift
  systemd-nspawn --quiet --register=no --keep-unit --pipe --directory="$dir/root" \
    --machine="$(tree_machine "$dir")" \
    --setenv=DEBIAN_FRONTEND=noninteractive --setenv=LC_ALL=C.UTF-8 "$@" \
    2> >(grep -v '^Attempted to remove disk file system under "/run/systemd/nspawn/propagate' >&2)
}

# elapsed: seconds since the script started, for the log.
elapsed() { echo "$((SECONDS))s"; }

# step TEXT: one line of progress, with the time so far.
step() { printf '== [%4s] %s\n' "$(elapsed)" "$*"; }
