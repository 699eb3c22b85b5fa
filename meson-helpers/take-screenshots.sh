#!/bin/sh
# Takes the AppStream screenshots (map.png, album.png, search.png, phone.png) of a built binary, on a private
# Xvfb, with map tiles and photos from the loopback service so they are reproducible and never
# touch the real services. Builds nothing itself.
#
#   meson-helpers/take-screenshots.sh BINARY [OUTPUT_DIR]     (default OUTPUT_DIR: data/screenshots)
#
# Needs: Xvfb, xdotool, ImageMagick's `import`, /usr/bin/python3 with PIL (for the service).
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:?usage: $0 BINARY [OUTPUT_DIR]}
out=${2:-$repo/data/screenshots}
case "$binary" in /*) ;; *) binary="$PWD/$binary" ;; esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
for tool in Xvfb xdotool import; do
    command -v "$tool" >/dev/null || { echo "$tool is missing (apt install xvfb xdotool imagemagick)" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vt-screenshots.XXXXXX")
xvfb_pid='' service_pid='' app_pid=''
cleanup() {
    for pid in $app_pid $service_pid $xvfb_pid; do
        kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# Polls a shell condition every 0.1 s; fails with MESSAGE after SECONDS.
wait_until() {
    seconds=$1 message=$2
    shift 2
    tries=$((seconds * 10))
    until "$@"; do
        tries=$((tries - 1))
        if [ "$tries" -le 0 ]; then
            echo "timed out waiting for $message" >&2
            [ -f "$tmp/app.log" ] && tail -n 30 "$tmp/app.log" >&2
            exit 1
        fi
        sleep 0.1
    done
}

# ---- X server: -displayfd lets Xvfb choose a free display and report it when it is ready.
Xvfb -displayfd 1 -nolisten tcp -screen 0 1280x800x24 >"$tmp/display" 2>"$tmp/xvfb.log" &
xvfb_pid=$!
wait_until 10 "Xvfb" test -s "$tmp/display"
DISPLAY=:$(cat "$tmp/display")
export DISPLAY

# ---- loopback service on a free port: it prints `READY http://127.0.0.1:PORT`.
/usr/bin/python3 "$repo/Tests/Support/loopback_service.py" --port 0 >"$tmp/service.out" 2>"$tmp/service.log" &
service_pid=$!
wait_until 15 "the loopback service" grep -q '^READY ' "$tmp/service.out"
service=$(sed -n 's/^READY //p' "$tmp/service.out")

# Photo-image requests served so far (the album is filled when they stop coming).
image_requests() {
    curl -fsS "$service/_control/stats" |
        /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["counts"].get("image", 0))'
}

images_requested() {
    [ "$(image_requests)" -gt 0 ]
}

# Waits until photos have been requested and no new request came for two seconds.
settle_images() {
    wait_until 30 "photo downloads" images_requested
    last=-1
    now=$(image_requests)
    while [ "$now" != "$last" ]; do
        last=$now
        sleep 2
        now=$(image_requests)
    done
}

# ---- one set of user folders for all shots, so the phone shot shows the same pins.
mkdir -p "$tmp/config/virtual-tourist" "$tmp/data" "$tmp/cache" "$tmp/runtime"
chmod 700 "$tmp/runtime"

write_settings() {
    cat >"$tmp/config/virtual-tourist/settings.json" <<EOF
{"seenIntroduction":true,"mapLatitude":48.8584,"mapLongitude":2.2945,"mapZoom":12,"windowWidth":$1,"windowHeight":$2}
EOF
}

window_id=''
start_app() {
    env XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache" \
        XDG_RUNTIME_DIR="$tmp/runtime" GTK_A11Y=none NO_AT_BRIDGE=1 \
        VT_TILE_URL="$service/tiles/{z}/{x}/{y}.png" \
        VT_COMMONS_URL="$service/commons/w/api.php" \
        VT_FLICKR_URL="$service/flickr/services/rest/" \
        VT_GEOCODER_URL="$service/nominatim/search" \
        "$binary" >>"$tmp/app.log" 2>&1 &
    app_pid=$!
    window_id=$(timeout 30 xdotool search --sync --onlyvisible --name '^Virtual Tourist$' | head -n 1)
    [ -n "$window_id" ] || { echo "the app window did not appear" >&2; tail -n 30 "$tmp/app.log" >&2; exit 1; }
    # Window origin and size on the root window, for clicks and the crop.
    eval "$(xdotool getwindowgeometry --shell "$window_id")"
    win_x=$X win_y=$Y win_w=$WIDTH win_h=$HEIGHT
    sleep 3   # let the first tiles arrive and paint
}

stop_app() {
    kill -TERM "$app_pid"
    wait "$app_pid" || true
    app_pid=''
}

# Press and hold at window coordinates: the app drops a pin there.
drop_pin() {
    xdotool mousemove --sync $((win_x + $1)) $((win_y + $2)) mousedown 1
    sleep 1
    xdotool mouseup 1
    sleep 0.5
}

shoot() {
    # Park the pointer outside the window so no tooltip or hover shows in the picture.
    xdotool mousemove 1279 799
    sleep 1
    # Without a compositor GTK draws a 5 px solid frame instead of a shadow: leave it out.
    import -window root -crop "$((win_w - 10))x$((win_h - 10))+$((win_x + 5))+$((win_y + 5))" +repage "$tmp/shot.png"
    mv "$tmp/shot.png" "$out/$1"
    echo "$out/$1: $((win_w - 10))x$((win_h - 10))"
}

# ---- map.png and album.png at the default size.
write_settings 900 640
start_app
# Spread over the map, clear of the header bar, zoom buttons, scale and licence.
drop_pin 250 250
drop_pin 470 330
drop_pin 650 210
drop_pin 360 480
drop_pin 690 450
shoot map.png

# The app fetches each new pin's photos at once; open the album once they have all arrived.
settle_images
# A pin's button stands on its tip: its middle is 16 px above the pressed point.
xdotool mousemove --sync $((win_x + 470)) $((win_y + 330 - 16)) click 1
settle_images
sleep 2   # decoding and painting the thumbnails
shoot album.png
stop_app

# ---- search.png: places found for "Paris" (the loopback geocoder's fixed answers).
start_app
xdotool key --window "$window_id" ctrl+f
sleep 0.5
xdotool type --delay 40 "Paris"
xdotool key Return
sleep 2
shoot search.png
stop_app

# ---- phone.png: the smallest width the app supports, same pins.
write_settings 360 640
start_app
shoot phone.png
stop_app
