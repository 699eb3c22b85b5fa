#!/usr/bin/env bash
# Writes the fixtures of this folder again, all or those named (./generate.sh schema-v9):
# each is written by the model sources of the commit that brought its schema, built here with
# FixtureGenerator.swift, so the data is what that version stored itself. ReleaseDataTests opens
# each with the current code.
#
# A new migration needs a fixture: add a line below with the commit that adds it and define
# SCHEMA_Vn in FixtureGenerator.swift where the new column gets a value, run this script for
# it, and add its test to ReleaseDataTests.
#
# Needs git, swift and sqlite3. Rows, photos and settings are the same on every run; the
# pins' creation times and the photos' file names are the old code's own (now, random), so a run
# changes those values and nothing else.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
# Ignored by .gitignore (.build-*), away from the .build folders others use.
work="$repo/.build-fixtures"
sample="$repo/Tests/Fuzz/corpus/image/tiny.jpg"

# name, commit that wrote the schema, migrations it has
fixtures=(
    "v0.1.0 v0.1.0 3"
    "schema-v4 4c29670deaccf8451f8a538e83ce56e039b786c7 4"
    "schema-v5 614db15553d662293bf8963b13231014731cb465 5"
    "schema-v6 50df45363db754508c7484b7491cf8ea28f8592d 6"
    "schema-v7 2057e69980e7fb020d62bf45376446aba80d6f5d 7"
    "schema-v8 320020c8f60fdf10da57c832765eefa9aebf4b0b 8"
    "schema-v9 0df28b81baffa05651313b1200a856f42892e203 9"
    "schema-v10 bd879ae8949df828c976132cd34273d72a6562c4 10"
    "schema-v11 54a2995916ad1c58cb132ed67e51dfb02c8a76f0 11"
)

generate() {
    local name=$1 ref=$2 schema=$3
    local commit out package home
    commit=$(git -C "$repo" rev-parse --verify "$ref^{commit}") \
        || { echo "generate: no commit $ref (create the release tag: see README.md)" >&2; exit 1; }
    out="$here/$name" package="$work/package" home="$work/home-$name"

    # That commit's model, and what it builds on, as its Package.swift had them.
    rm -rf "$package/Sources" "$home"
    mkdir -p "$package/Sources/Generator" "$home"
    git -C "$repo" archive "$commit" Sources/TouristModel Sources/CIntl \
        $(git -C "$repo" ls-tree --name-only "$commit" Sources/Translation Sources/ImageSniffing Sources/PlaceFiles \
              Sources/CLibXML2 Sources/CArchive Sources/PhotoMetadata Sources/CGExiv2) \
        | tar -x -C "$package"
    local model_deps='"CIntl"' extra='' defines=''
    if [[ -d $package/Sources/Translation ]]; then
        model_deps='"Translation", "ImageSniffing"'
        extra='.target(name: "Translation", dependencies: ["CIntl"]), .target(name: "ImageSniffing"),'
    fi
    # The model's own parsers of outside files, over system libraries, since schema v11.
    if [[ -d $package/Sources/PlaceFiles ]]; then
        model_deps+=', "PlaceFiles"'
        extra+=' .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0"), .systemLibrary(name: "CArchive", pkgConfig: "libarchive"),'
        extra+=' .target(name: "PlaceFiles", dependencies: ["CLibXML2", "CArchive"]),'
    fi
    if [[ -d $package/Sources/PhotoMetadata ]]; then
        model_deps+=', "PhotoMetadata"'
        extra+=' .systemLibrary(name: "CGExiv2", pkgConfig: "gexiv2"), .target(name: "PhotoMetadata", dependencies: ["CGExiv2"]),'
    fi
    local migrations
    migrations=$(grep -rho 'registerMigration("v[0-9]*' "$package/Sources/TouristModel" | grep -o '[0-9]*$' | sort -n | tail -1)
    [[ $migrations == "$schema" ]] || { echo "generate: $commit has migrations up to v$migrations, not v$schema" >&2; exit 1; }
    for ((n = 4; n <= schema; n++)); do defines+=".define(\"SCHEMA_V$n\"), "; done
    cp "$here/FixtureGenerator.swift" "$package/Sources/Generator/main.swift"
    cat >"$package/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription
// Written by generate.sh for $name ($commit).
let package = Package(
    name: "FixtureGenerator",
    dependencies: [.package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0")],
    targets: [
        .systemLibrary(name: "CIntl"), $extra
        .target(name: "TouristModel", dependencies: [$model_deps, .product(name: "GRDB", package: "GRDB.swift")]),
        .executableTarget(name: "generate-fixture", dependencies: ["TouristModel", .product(name: "GRDB", package: "GRDB.swift")],
                          path: "Sources/Generator", swiftSettings: [$defines]),
    ]
)
EOF
    (cd "$package" && swift build --scratch-path "$package/.build" --product generate-fixture >&2)
    local tool="$package/.build/debug/generate-fixture"

    LANG=C.UTF-8 LANGUAGE= LC_ALL= "$tool" write "$home" "$sample" "$work/manifest.json"
    local data="$home/data/virtual-tourist" config="$home/config/virtual-tourist"
    # A clean close leaves the database file alone; anything beside it would not be in the dump.
    local left
    left=$(cd "$data" && ls -A | grep -vx -e tourist.sqlite -e photos || true)
    [[ -z $left ]] || { echo "generate: unexpected files beside the database: $left" >&2; exit 1; }
    sqlite3 "$data/tourist.sqlite" .dump >"$work/tourist.sql"
    "$tool" check "$work/tourist.sql" "$work/manifest.json"

    rm -rf "$out"
    mkdir -p "$out/data/virtual-tourist/photos" "$out/config/virtual-tourist"
    mv "$work/tourist.sql" "$out/data/virtual-tourist/tourist.sql"
    mv "$work/manifest.json" "$out/manifest.json"
    cp "$config/settings.json" "$out/config/virtual-tourist/settings.json"
    cp "$data/photos/"* "$out/data/virtual-tourist/photos/"
    cat >"$out/README.md" <<EOF
# Fixture $name: data written by schema v$schema

Written by \`../generate.sh $name\` with the model of commit $commit
($(git -C "$repo" log -1 --format='%ad, "%s"' --date=short "$commit" | cut -c1-160)),
built with ../FixtureGenerator.swift: the pins, albums, photo files and settings are what that
code stored through its own Store and SettingsFile, laid out as it laid them out:

- \`data/virtual-tourist/tourist.sql\`: the database (\`\$XDG_DATA_HOME/virtual-tourist/tourist.sqlite\`),
  as \`sqlite3 tourist.sqlite .dump\` (SQLite $(sqlite3 --version | cut -d' ' -f1)) printed it;
- \`data/virtual-tourist/photos/\`: its photo files, named as the rows name them;
- \`config/virtual-tourist/settings.json\`: its settings file (\`\$XDG_CONFIG_HOME\`);
- \`manifest.json\`: every row as that code left it in the file (REALs as their bits), the photo
  files and the settings as it read them back; ReleaseDataTests compares the current code's
  reading with it.

Do not edit by hand: run the script again instead.
EOF
    echo "generate: $name written by $commit" >&2
}

names=("$@")
for line in "${fixtures[@]}"; do
    read -r name ref schema <<<"$line"
    if ((${#names[@]} == 0)) || [[ " ${names[*]} " == *" $name "* ]]; then
        generate "$name" "$ref" "$schema"
    fi
done
