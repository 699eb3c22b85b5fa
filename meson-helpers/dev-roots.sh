# shellcheck shell=bash disable=SC2154
# (SC2154: the lists and variables used here are assigned in meson-helpers/dev.)
# meson-helpers/dev's Debian roots, for a host below the project's floor: the archive to build
# them from, their creation with debootstrap, this script run inside one (run_in_root), and in
# there the build and the app run as the caller, and the root's own set-up. Sourced by
# meson-helpers/dev, which sets the variables and package lists used here; not run on its own.

# The Debian archive this machine's own apt uses (the project names none): $VT_DEBIAN_MIRROR if
# set, else the first URIs: line of /etc/apt/sources.list.d/*.sources, else the first deb line of
# /etc/apt/sources.list. Security and update archives are skipped: debootstrap needs the main one.
debian_mirror() {
    if [[ -n ${VT_DEBIAN_MIRROR:-} ]]; then echo "$VT_DEBIAN_MIRROR"; return 0; fi
    local uri
    uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null \
          | awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' | grep -v -- '-security' | head -n1)
    if [[ -z $uri && -r /etc/apt/sources.list ]]; then
        uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; break } }' \
              /etc/apt/sources.list | grep -v -- '-security' | head -n1)
    fi
    if [[ -z $uri ]]; then
        echo "dev: no Debian archive found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list;" >&2
        echo "dev: set VT_DEBIAN_MIRROR to the archive to build the roots from" >&2
        return 1
    fi
    echo "$uri"
}

create_root() {
    [[ -x $root_dir/usr/bin/apt-get && -f $root_dir/.vt-dev-root ]] && return 0
    local mirror
    mirror=$(debian_mirror) || exit 1
    echo "dev: this system's GTK/libadwaita/libshumate are older than the project's floor;" >&2
    echo "dev: creating a Debian $suite root in $root_dir (once; a few minutes)" >&2
    # The keyring lets debootstrap check the archive's signatures (it is not on a minimal system).
    ensure_packages debootstrap debian-archive-keyring
    local staging="$root_dir.partial"
    as_root rm -rf "$staging"
    as_root mkdir -p "$(dirname "$root_dir")"
    echo "dev: Debian archive (from this machine's apt configuration): $mirror" >&2
    as_root debootstrap --variant=minbase --include=ca-certificates \
        --keyring=/usr/share/keyrings/debian-archive-keyring.gpg "$suite" "$staging" "$mirror" \
        || { echo "dev: debootstrap of Debian $suite from $mirror failed (see above)" >&2; exit 1; }
    # A mirror that is a dated snapshot serves unstable's Release past its Valid-Until; the
    # signatures are still checked.
    [[ $suite == trixie ]] || echo 'Acquire::Check-Valid-Until "false";' \
        | as_root tee "$staging/etc/apt/apt.conf.d/90vt-dev-valid-until" >/dev/null
    # The host's rule that makes GitHub URLs resolve to a local package mirror, if it has one;
    # root_setup gives it to the root's git once git is installed there.
    git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null \
        | as_root tee "$staging/etc/vt-dev-gitrules" >/dev/null || true
    as_root touch "$staging/.vt-dev-root"
    as_root mv "$staging" "$root_dir"
}

# Runs this script inside the root: packages are installed there by the inner run's own
# ensure_packages, so the root's package list follows this file's lists.
run_in_root() {
    create_root
    local uid gid
    uid=$(id -u) gid=$(id -g)
    local binds=("$repo") common
    # A git worktree keeps its history in the main checkout's .git: the root needs it too.
    common=$(git -C "$repo" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
    [[ -n $common && $common != "$repo"/* ]] && binds+=("$common")
    [[ -d /opt/swift ]] && binds+=(/opt/swift)
    [[ -d /opt/swift-packages ]] && binds+=(/opt/swift-packages)
    [[ -d /tmp/.X11-unix ]] && binds+=(/tmp/.X11-unix)
    local swift_bin
    swift_bin=$(dirname "$(command -v swift)")

    # What the inner run sees of this environment: the project's own VT_* switches (VT_APP,
    # VT_KEEP_TEST_FILES …), pytest's options, the CI flag and the language (the root drops a
    # locale it has not generated: see keep_available_locale); the rest is the root's.
    local passed=() name
    for name in $(compgen -e); do
        case "$name" in
            VT_DEV_*) ;;
            VT_*|PYTEST_ADDOPTS|CI|LANG|LANGUAGE|LC_*) passed+=("$name=${!name}") ;;
        esac
    done

    # Everything below happens in a new mount namespace: its mounts vanish when it ends.
    as_root env \
        VT_ROOT="$root_dir" VT_BINDS="${binds[*]}" VT_XAUTHORITY="${XAUTHORITY:-}" \
        unshare --mount --propagation private -- /bin/bash -euo pipefail -c '
            # The root becomes the namespace'"'"'s own root (pivot_root), not a chroot: the kernel
            # refuses new user namespaces to a chrooted process, and Flatpak'"'"'s sandboxes need them.
            mount --bind "$VT_ROOT" "$VT_ROOT"
            mount -t proc proc "$VT_ROOT/proc"
            mount --rbind /dev "$VT_ROOT/dev"
            mount --rbind /sys "$VT_ROOT/sys"
            for path in $VT_BINDS; do
                mkdir -p "$VT_ROOT$path"
                mount --bind "$path" "$VT_ROOT$path"
            done
            cp /etc/resolv.conf "$VT_ROOT/etc/resolv.conf" 2>/dev/null || true
            [[ -n $VT_XAUTHORITY && -f $VT_XAUTHORITY ]] && cp "$VT_XAUTHORITY" "$VT_ROOT/tmp/.vt-xauthority"
            cd "$VT_ROOT"
            mkdir -p .vt-old-root
            pivot_root . .vt-old-root
            umount -l /.vt-old-root
            exec /usr/bin/env -i "$@"
        ' dev \
        PATH="$swift_bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
        HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" DISPLAY="${DISPLAY:-}" \
        ${XAUTHORITY:+XAUTHORITY=/tmp/.vt-xauthority} \
        VT_DEV_IN_ROOT=1 VT_DEV_STACK="${stack:-trixie}" VT_DEV_BOTH="${VT_DEV_BOTH:-}" VT_DEV_UID="$uid" VT_DEV_GID="$gid" "${passed[@]}" \
        "$repo/meson-helpers/dev" "$@"
}

# In the root, apt ran as root; the build and the app run as the caller, so that .build stays
# theirs. Outside the root, or for a root caller, this is a plain exec.
as_caller() {
    if [[ -n ${VT_DEV_IN_ROOT:-} && ${VT_DEV_UID:-0} -ne 0 ]]; then
        mkdir -p "/tmp/vt-home-$VT_DEV_UID" && chown "$VT_DEV_UID:$VT_DEV_GID" "/tmp/vt-home-$VT_DEV_UID"
        HOME="/tmp/vt-home-$VT_DEV_UID" setpriv --reuid="$VT_DEV_UID" --regid="$VT_DEV_GID" --clear-groups "$@"
    else
        "$@"
    fi
}

# The caller's locale came along into the root (`LANG=de_DE.UTF-8 LANGUAGE=de dev run` shows the
# app in German once `dev test` has generated that locale); one the root lacks falls back to
# C.UTF-8, as GTK would with a warning.
keep_available_locale() {
    local name value available
    available=$(locale -a 2>/dev/null | tr '[:upper:]' '[:lower:]')
    for name in LC_ALL LC_MESSAGES LC_NUMERIC LANG; do
        value=${!name:-}
        [[ -z $value ]] && continue
        value=${value,,}
        grep -qxF "${value//-/}" <<<"$available" || unset "$name"
    done
    export LANG=${LANG:-C.UTF-8}
}

root_setup() {
    [[ -n ${VT_DEV_IN_ROOT:-} ]] || return 0
    keep_available_locale
    ensure_packages "${root_only_packages[@]}" git
    # Git in the root resolves GitHub to the local package mirror, as the host's git does.
    local key value
    if [[ -s /etc/vt-dev-gitrules ]]; then
        while read -r key value; do
            git config --system --get-all "$key" 2>/dev/null | grep -qxF "$value" \
                || git config --system --add "$key" "$value"
        done </etc/vt-dev-gitrules
    fi
}
