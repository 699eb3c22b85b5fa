#!/usr/bin/env bash
# Fuzzes every parser of outside data with libFuzzer and reports what it found.
#
#   ./meson-helpers/fuzz.sh [SECONDS]                    each target SECONDS (default 60), in turn
#   FUZZ_TARGETS="html settings" ./meson-helpers/fuzz.sh 600   only these targets
#
# Targets (sources in Tests/Fuzz, seed corpora in Tests/Fuzz/corpus/NAME):
#   flickr    FlickrSource.decode        commons   CommonsSource.decode
#   html      HTMLText.plain             image     ImageCheck.looksLikeImage
#   settings  Settings as SettingsFile decodes it
#   url       AddressPolicy on photo addresses (and its IPv4/IPv6 parsers)
#   geocoder  Place.decodeNominatim (place search answers)
#   wikipedia NearbyArticles.decode (Wikipedia's articles near a pin)
#   places    PlaceFile.read (GPX, KML, KMZ and GeoJSON files), and what it reads written back
#   photos    YourPhoto.facts: the user's own photo's metadata, read by gexiv2 over exiv2
#   panoramax PanoramaxSource.decode (Panoramax's STAC search answers)
#
# Each target is one `swiftc -sanitize=fuzzer,address` compile of the model's parser files
# (they need neither GRDB nor GTK) plus the target's file, so no SwiftPM build is involved.
# Everything it writes goes to .build-fuzz/: bin/, corpus/NAME (inputs found to add coverage),
# findings/NAME (crash-*, timeout-*, oom-*, leak-*: inputs that crash or hang), logs/NAME.log.
# Turn every finding into a unit test. Not part of `dev test`; exits 1 when anything was found.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
seconds=${1:-60}
[[ $seconds =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }

swiftc=$(command -v swiftc || true)
[[ -n $swiftc ]] || swiftc=/opt/swift/usr/bin/swiftc
[[ -x $swiftc ]] || { echo "fuzz: swiftc not found" >&2; exit 1; }

# The model files the parsers are made of; GRDB-based files (Store, Photo…) stay out. They import
# the modules below the model, built first as modules of their own: Translation (gettext, from
# the CIntl module map), ImageSniffing and PlaceFiles (over libxml2 and libarchive, which are
# linked, not instrumented: the fuzzer follows the Swift around them).
# PhotoMetadata too, over gexiv2 and exiv2 (C++, also linked uninstrumented: a crash inside
# exiv2 on a hostile photo is still a finding).
bases=(Translation ImageSniffing PlaceFiles PhotoMetadata)
gexiv2_cflags=()
for flag in $(pkg-config --cflags gexiv2); do gexiv2_cflags+=(-Xcc "$flag"); done
c_modules=(-I Sources/CIntl -I Sources/CLibXML2 -I Sources/CArchive -I Sources/CGExiv2 -Xcc -I/usr/include/libxml2
           "${gexiv2_cflags[@]}")
parsers=(Bounded Coordinate PhotoSource HTTPClient AddressPolicy FlickrSource CommonsSource HTMLText ImageProblem
         Settings Place Geocoder RequestPacer Connectivity Localization TakenDate
         WikimediaThumbnails FlickrSizes RequestBudget HostPauses PlaceNamesServer NearbyArticles RelativePlace
         YourPhoto PanoramaxSource PanoramaxAnswer)
declare -A sources=([flickr]=FlickrDecoder [commons]=CommonsDecoder [html]=HTMLStripper
                    [image]=ImageSniffer [settings]=SettingsDecoder [url]=AddressPolicyCheck
                    [geocoder]=PlaceDecoder [dates]=DateParser [wikipedia]=WikipediaDecoder
                    [places]=PlacesFileReader [photos]=PhotoMetadataReader
                    [panoramax]=PanoramaxDecoder)
targets=(${FUZZ_TARGETS:-flickr commons html image settings url geocoder dates wikipedia places photos panoramax})

out=.build-fuzz
mkdir -p "$out/bin" "$out/logs" "$out/modules"
model_files=()
for name in "${parsers[@]}"; do model_files+=("$(find Sources/TouristModel -name "$name.swift")"); done

# Each base module once, instrumented like the rest: one object file and its .swiftmodule.
base_objects=()
for base in "${bases[@]}"; do
    "$swiftc" -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -wmo -c \
        -module-name "$base" "${c_modules[@]}" -emit-module -emit-module-path "$out/modules/$base.swiftmodule" \
        Sources/"$base"/*.swift -o "$out/modules/$base.o"
    base_objects+=("$out/modules/$base.o")
done

build() {
    local name=$1
    # lld: gold warns about every ASan symbol it cannot export.
    "$swiftc" -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -use-ld=lld \
        -module-name TouristFuzz "${c_modules[@]}" -I "$out/modules" "${model_files[@]}" "${base_objects[@]}" \
        "Tests/Fuzz/${sources[$name]}.swift" -lxml2 -larchive $(pkg-config --libs gexiv2) -o "$out/bin/$name"
}

total_runs=0
total_findings=0
summary=()
for name in "${targets[@]}"; do
    [[ -n ${sources[$name]:-} ]] || { echo "fuzz: unknown target $name" >&2; exit 2; }
    echo "fuzz: building $name" >&2
    build "$name"
    mkdir -p "$out/corpus/$name" "$out/findings/$name"
    before=$(find "$out/findings/$name" -type f | wc -l)
    case $name in
        image|photos) dict=() ;;
        url) dict=(-dict=Tests/Fuzz/url.dict) ;;
        places) dict=(-dict=Tests/Fuzz/places.dict) ;;
        *) dict=(-dict=Tests/Fuzz/json.dict) ;;
    esac
    echo "fuzz: running $name for ${seconds}s" >&2
    # -timeout: an input taking 10 s is a hang. New coverage goes to the first corpus
    # directory; the seeds in the repository are only read.
    # Swift's own crash backtracer trips ASan while reading the dying process: libFuzzer
    # reports crashes itself.
    status=0
    SWIFT_BACKTRACE=enable=no "$out/bin/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=32768 \
        -print_final_stats=1 -artifact_prefix="$out/findings/$name/" "${dict[@]}" \
        "$out/corpus/$name" "Tests/Fuzz/corpus/$name" >"$out/logs/$name.log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/logs/$name.log" | tail -1)
    # A run that stopped at a crash prints no final stats: take its last progress line.
    [[ -n $runs ]] || runs=$(grep -oE '^#[0-9]+' "$out/logs/$name.log" | tail -1 | tr -d '#')
    runs=${runs:-0}
    found=$(( $(find "$out/findings/$name" -type f | wc -l) - before ))
    total_runs=$((total_runs + runs))
    total_findings=$((total_findings + found))
    summary+=("$(printf '%-9s %12s executions  %s new findings  exit %s' "$name" "$runs" "$found" "$status")")
done

echo "fuzz: ${seconds}s per target" >&2
printf '  %s\n' "${summary[@]}" >&2
echo "fuzz: $total_runs executions, $total_findings findings (inputs in $out/findings, logs in $out/logs)" >&2
[[ $total_findings -eq 0 ]]
