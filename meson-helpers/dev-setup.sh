# shellcheck shell=bash disable=SC2154
# (SC2154: the lists and variables used here are assigned in meson-helpers/dev.)
# meson-helpers/dev's set-up of the machine it runs on (the host, or inside a root): root rights,
# the packages that dev's lists name, Swift, the project's floor, the test locale and the compiled
# translations. Sourced by meson-helpers/dev, which sets the variables and package lists used
# here; not run on its own.

as_root() {
    if [[ $(id -u) -eq 0 ]]; then
        "$@"
    else
        command -v sudo >/dev/null || { echo "dev: need root or sudo for: $*" >&2; exit 1; }
        sudo "$@"
    fi
}

# Installs only what dpkg says is missing, so a ready machine never touches apt or sudo.
# gexiv2 0.14's headers (pkg-config `gexiv2`, the API the app uses) are libgexiv2-dev up to
# Debian 13; from Debian 14 that name carries gexiv2 0.16 (`gexiv2-0.16`, another API) and 0.14 is
# libgexiv2-0.14-dev. The lists name it gexiv2-0.14-dev; this picks the package the archive has.
installed() { [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == "install ok installed" ]]; }
gexiv2_installed() { installed libgexiv2-0.14-dev || { installed libgexiv2-dev && pkg-config --exists gexiv2; }; }

ensure_packages() {
    local missing=() package
    for package in "$@"; do
        if [[ $package == gexiv2-0.14-dev ]]; then
            gexiv2_installed || missing+=("$package")
        elif ! installed "$package"; then
            missing+=("$package")
        fi
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0

    echo "dev: installing ${missing[*]}" >&2
    # `env` carries the variables through sudo; noninteractive because CI has no stdin.
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    local i
    for i in "${!missing[@]}"; do
        if [[ ${missing[i]} == gexiv2-0.14-dev ]]; then
            if apt-cache show libgexiv2-0.14-dev >/dev/null 2>&1; then
                missing[i]=libgexiv2-0.14-dev
            else
                missing[i]=libgexiv2-dev
            fi
        fi
    done
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

ensure_swift() {
    if ! command -v swift >/dev/null && [[ -x /opt/swift/usr/bin/swift ]]; then
        export PATH="/opt/swift/usr/bin:$PATH"
    fi
    command -v swift >/dev/null || { echo "dev: swift not found (install a Swift toolchain)" >&2; exit 1; }
}

meets_floor() {
    command -v pkg-config >/dev/null || return 1
    local module
    for module in "${floor_modules[@]}"; do
        # shellcheck disable=SC2086 # "name >= version" is meant to split into three words
        pkg-config --exists $module 2>/dev/null || return 1
    done
}

# A Debian release whose libraries meet the floor can get them from apt: install, then recheck.
try_native() {
    meets_floor && return 0
    [[ -n ${VT_DEV_IN_ROOT:-} ]] && return 1
    local version_id
    version_id=$(. /etc/os-release 2>/dev/null; echo "${ID:-}:${VERSION_ID:-0}")
    case "$version_id" in
        debian:1[3-9]*|debian:[2-9][0-9]*|ubuntu:2[4-9]*|ubuntu:[3-9][0-9]*) ;;
        *) return 1 ;;
    esac
    ensure_packages "${build_packages[@]}"
    meets_floor
}

# Generates $test_locale once. Debian's locale-gen builds what /etc/locale.gen lists (and drops
# what it does not, so the line goes there); Ubuntu's takes the name as an argument.
ensure_test_locale() {
    locale -a 2>/dev/null | grep -qix "${test_locale/UTF-8/utf8}" && return 0
    ensure_packages locales
    echo "dev: generating the $test_locale locale" >&2
    as_root sh -c "grep -qx '$test_locale UTF-8' /etc/locale.gen 2>/dev/null || echo '$test_locale UTF-8' >>/etc/locale.gen"
    as_root locale-gen "$test_locale" >/dev/null
}

# Compiles po/*.po into .build/locale/LANG/LC_MESSAGES/virtual-tourist.mo, where VT_LOCALE_DIR
# points the app (installed, it finds them in ../share/locale next to its bin folder).
compile_catalogues() {
    local po lang mo
    for po in po/*.po; do
        [[ -e $po ]] || continue
        lang=$(basename "$po" .po)
        mo=.build/locale/$lang/LC_MESSAGES/virtual-tourist.mo
        [[ -f $mo && $mo -nt $po ]] && continue
        as_caller mkdir -p "$(dirname "$mo")"
        as_caller msgfmt --check -o "$mo" "$po"
    done
    export VT_LOCALE_DIR="$repo/.build/locale"
}
