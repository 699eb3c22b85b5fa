#!/bin/sh
# Builds the app with SwiftPM on meson's behalf: meson cannot build a Swift package itself, so a
# custom target calls this script, which runs `swift build` and copies the product to the path
# meson expects.
#
#   swift-build.sh SWIFT SOURCE_ROOT SCRATCH_PATH OUTPUT [--static-swift-stdlib] [--offline]
#
# SCRATCH_PATH may be relative to SOURCE_ROOT (the Flatpak manifest puts the dependency checkouts
# there). --offline adds --force-resolved-versions (exactly the versions Package.resolved pins; the
# Flatpak copies its pins there) and keeps SwiftPM's caches and configuration inside the scratch
# folder, so a sandboxed build neither fetches nor reads $HOME. Extra `swift build`
# arguments can be given in VT_SWIFT_BUILD_FLAGS (split on spaces).
set -eu

if [ "$#" -lt 4 ]; then
    echo "usage: $0 SWIFT SOURCE_ROOT SCRATCH_PATH OUTPUT [--static-swift-stdlib] [--offline]" >&2
    exit 2
fi
swift=$1 source_root=$2 scratch=$3 output=$4
shift 4

static=false offline=false
for arg in "$@"; do
    case "$arg" in
        --static-swift-stdlib) static=true ;;
        --offline) offline=true ;;
        *) echo "$0: unknown option $arg" >&2; exit 2 ;;
    esac
done

case "$scratch" in
    /*) ;;
    *) scratch="$source_root/$scratch" ;;
esac

set -- build -c release --package-path "$source_root" --scratch-path "$scratch"
if $static; then
    set -- "$@" --static-swift-stdlib
fi
if $offline; then
    set -- "$@" --force-resolved-versions --cache-path "$scratch/cache" \
        --config-path "$scratch/config" --security-path "$scratch/security"
fi
if [ -n "${VT_SWIFT_BUILD_FLAGS:-}" ]; then
    # Deliberately unquoted: the variable holds several flags.
    # shellcheck disable=SC2086
    set -- "$@" $VT_SWIFT_BUILD_FLAGS
fi

# Only the app's product: the test targets are not needed to install the app.
"$swift" "$@" --product virtual-tourist
bin_dir=$("$swift" "$@" --show-bin-path)

# Copy then rename, so an interrupted copy never leaves a truncated binary at OUTPUT.
cp "$bin_dir/virtual-tourist" "$output.tmp"
chmod 755 "$output.tmp"
mv -f "$output.tmp" "$output"
