#!/bin/sh
# Smoke test for an installed or built binary: starts it on a private Xvfb with empty XDG folders
# and checks that its main window appears, then stops it with SIGTERM and expects a clean exit.
#
#   test-window.sh BINARY [TIMEOUT_SECONDS]
set -eu

binary=$1
limit=${2:-30}
# meson passes a path relative to the build folder; make it one `env` will not look up in PATH.
case "$binary" in
    /*) ;;
    *) binary="$PWD/$binary" ;;
esac
[ -x "$binary" ] || { echo "$binary is not an executable" >&2; exit 1; }
for tool in Xvfb xdotool; do
    command -v "$tool" >/dev/null || { echo "$tool is missing (apt install xvfb xdotool)" >&2; exit 77; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vt-window-test.XXXXXX")
xvfb_pid='' app_pid=''
cleanup() {
    for pid in $app_pid $xvfb_pid; do
        kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# -displayfd: Xvfb picks a free display itself and writes its number once it accepts clients,
# so parallel test runs never fight over a display number.
Xvfb -displayfd 1 -nolisten tcp -screen 0 1280x800x24 >"$tmp/display" 2>"$tmp/xvfb.log" &
xvfb_pid=$!
i=0
while [ ! -s "$tmp/display" ]; do
    i=$((i + 1))
    if [ "$i" -gt 100 ] || ! kill -0 "$xvfb_pid" 2>/dev/null; then
        echo "Xvfb did not start:" >&2; cat "$tmp/xvfb.log" >&2; exit 1
    fi
    sleep 0.1
done
DISPLAY=:$(cat "$tmp/display")
export DISPLAY

mkdir -p "$tmp/config" "$tmp/data" "$tmp/cache" "$tmp/runtime"
chmod 700 "$tmp/runtime"
# Fresh user folders; tiles from a closed local port so the test never reaches the internet.
env XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache" \
    XDG_RUNTIME_DIR="$tmp/runtime" HOME="$tmp" GTK_A11Y=none NO_AT_BRIDGE=1 \
    VT_TILE_URL='http://127.0.0.1:9/{z}/{x}/{y}.png' \
    VT_COMMONS_URL='http://127.0.0.1:9/w/api.php' VT_FLICKR_URL='http://127.0.0.1:9/rest/' \
    VT_WIKIPEDIA_URL='http://127.0.0.1:9/w/api.php' VT_GEOCODER_URL='http://127.0.0.1:9/search' \
    "$binary" >"$tmp/app.log" 2>&1 &
app_pid=$!

# Poll rather than `xdotool search --sync`, so an app that dies at start fails at once.
i=0
until xdotool search --onlyvisible --name '^Virtual Tourist$' >"$tmp/windows" 2>/dev/null; do
    i=$((i + 1))
    if ! kill -0 "$app_pid" 2>/dev/null; then
        echo "the app exited before showing its window; output:" >&2
        cat "$tmp/app.log" >&2
        exit 1
    fi
    if [ "$i" -gt $((limit * 5)) ]; then
        echo "no window titled \"Virtual Tourist\" within ${limit} s; app output:" >&2
        cat "$tmp/app.log" >&2
        exit 1
    fi
    sleep 0.2
done
echo "window $(head -n 1 "$tmp/windows") appeared on $DISPLAY"

kill -TERM "$app_pid"
status=0
wait "$app_pid" || status=$?
app_pid=''
if [ "$status" -ne 0 ]; then
    echo "app exited with status $status after SIGTERM; output:" >&2
    cat "$tmp/app.log" >&2
    exit 1
fi
echo "app quit cleanly"
