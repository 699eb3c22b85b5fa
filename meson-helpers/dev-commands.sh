# shellcheck shell=bash disable=SC2154
# (SC2154: the lists and variables used here are assigned in meson-helpers/dev.)
# meson-helpers/dev's commands: run, test (and which suites run in which stack), soak, flatpak,
# publish, screenshots and bench, with the warning-checked swift build and the app's pytest they
# share. Sourced by meson-helpers/dev, which sets the variables and package lists used here and
# dispatches to these; not run on its own.

# `swift build` or `swift test` (give it the build folder); a warning from the project's own
# files (Swift, the C shim, the tests) fails it: the floor's MAX_ALLOWED macros turn the use of
# an API newer than the floor into one, and a stack that warns is a stack users meet.
swift_checked() {
    local log status=0
    log=$(mktemp)
    as_caller swift "$@" 2>&1 | tee "$log" || status=$?
    if grep -E "^$repo/(Sources|Tests|Package\.swift)[^:]*:[0-9]+:([0-9]+:)? warning:" "$log" >"$log.warnings"; then
        echo "dev: swift $1 warned about the project's own files ($suite stack):" >&2
        sort -u "$log.warnings" >&2
        [[ $status -ne 0 ]] || status=1
    fi
    rm -f "$log" "$log.warnings"
    return "$status"
}

bin_path() { as_caller swift build --scratch-path "$scratch" --show-bin-path; }

# The app built with AddressSanitizer (beside `swift test --sanitize=address`'s build); its path.
asan_app() {
    swift_checked build --sanitize=address --scratch-path "$scratch/asan" >&2 || return 1
    echo "$(as_caller swift build --sanitize=address --scratch-path "$scratch/asan" --show-bin-path)/virtual-tourist"
}

# pytest in one D-Bus session (the app and the tests must share the AT-SPI bus), with the app at
# $1; a sanitizer's report ends the app, and the harness fails the test that saw it.
app_pytest() {
    local app=$1
    shift
    as_caller env VT_APP="$app" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
        dbus-run-session -- /usr/bin/python3 -m pytest -p no:cacheprovider -q "$@"
}

# Rounds of the fault scenarios against the AddressSanitizer build; counts the rounds that failed.
soak() {
    local rounds=$1 app round bad=0
    app=$(asan_app) || return 1
    for ((round = 1; round <= rounds; round++)); do
        echo "dev: soak round $round of $rounds" >&2
        VT_APP_SANITIZED=1 app_pytest "$app" "${soak_tests[@]}" || bad=$((bad + 1))
    done
    echo "dev: soak: $rounds rounds, $bad with a failure or a crash" >&2
    [[ $bad -eq 0 ]]
}

run_app() {
    root_setup
    ensure_packages "${build_packages[@]}"
    ensure_swift
    swift_checked build --scratch-path "$scratch"
    compile_catalogues
    as_caller "$(bin_path)/virtual-tourist" "$@"
}

# With both stacks in one `dev test` (VT_DEV_BOTH), the suites whose outcome does not depend on
# the GNOME libraries run in one of them: `swift test` under AddressSanitizer, the loopback
# service's and the packaging tests in trixie; the Flatpak (whose stand-in runtime is the newest
# stack) in newest, and the app built with AddressSanitizer and the soak there too: Debian 13's
# libsoup 3.6.5 releases a queue item twice when a server drops connections, whatever the app
# does (fixed in 3.6.6, which GNOME 50's runtime has; docs/upstream).
runs_here() {
    [[ -z ${VT_DEV_BOTH:-} ]] && return 0
    case "$1" in
        once) [[ $suite == trixie ]] ;;
        flatpak|sanitized) [[ $suite != trixie ]] ;;
    esac
}

run_tests() {
    root_setup
    ensure_packages "${build_packages[@]}" "${test_packages[@]}"
    ensure_test_locale
    ensure_swift
    # The packages a failure on a moving archive (sid) is to be traced to, named with versions.
    echo "dev: testing in $suite on: $(dpkg-query -W -f='${Package} ${Version}, ' "${stack_packages[@]}" 2>/dev/null)" >&2
    # Run every suite even when one fails, so one CI run reports all failures.
    local failed=()
    swift_checked build --scratch-path "$scratch" || failed+=("swift build ($suite)")
    compile_catalogues
    # The tests expect the app in English (the German ones set their own locale), whatever
    # language the developer's session speaks.
    unset LANGUAGE LC_ALL LC_MESSAGES LC_NUMERIC
    export LANG=C.UTF-8
    # The app tests start the binary just built unless VT_APP names another one.
    export VT_APP="${VT_APP:-$(bin_path)/virtual-tourist}"

    swift_checked test --scratch-path "$scratch" || failed+=("swift test ($suite)")
    local suites=(Tests/AppTests)
    if runs_here once; then
        # Once more under AddressSanitizer, with the C shim and its libsoup/GTK calls (a separate
        # build path, so the debug build above stays as it is). Leak reports are off: they list the
        # Swift runtime's and XCTest's process-lifetime allocations, not errors; memory errors abort.
        as_caller env ASAN_OPTIONS=detect_leaks=0 swift test --sanitize=address --scratch-path "$scratch/asan" \
            || failed+=("swift test (AddressSanitizer, $suite)")
        suites=(Tests/Support Tests/Packaging Tests/AppTests)
    fi
    app_pytest "$VT_APP" "${suites[@]}" || failed+=("pytest ($suite)")
    if runs_here sanitized; then
        # The app itself under AddressSanitizer, where it meets faults; then the soak's rounds
        # (VT_SOAK_ROUNDS, 3 by default here; `dev soak` runs 20).
        local asan
        if asan=$(asan_app); then
            VT_APP_SANITIZED=1 app_pytest "$asan" "${fault_tests[@]}" || failed+=("pytest, app with AddressSanitizer ($suite)")
            soak "${VT_SOAK_ROUNDS:-3}" || failed+=("soak ($suite)")
        else
            failed+=("swift build with AddressSanitizer ($suite)")
        fi
    fi

    if runs_here flatpak; then
        # The Flatpak: the committed manifest built offline on stand-in runtimes, its sandboxed
        # smoke test, then the published repository installed and updated as a new user would.
        ensure_packages "${flatpak_packages[@]}"
        as_root /usr/bin/python3 "$repo/meson-helpers/flatpak-check.py" || failed+=("flatpak ($suite)")
    fi

    if [[ ${#failed[@]} -gt 0 ]]; then
        echo "dev: FAILED: ${failed[*]}" >&2
        exit 1
    fi
    echo "dev: all tests passed ($suite)" >&2
}

run_flatpak() {
    root_setup
    ensure_packages "${build_packages[@]}" "${test_packages[@]}" "${flatpak_packages[@]}"
    ensure_test_locale
    # As root: it builds stand-in runtimes, and runs flatpak-builder in a namespace without network.
    as_root /usr/bin/python3 "$repo/meson-helpers/flatpak-check.py"
}

run_soak() {
    root_setup
    ensure_packages "${build_packages[@]}" "${test_packages[@]}"
    ensure_test_locale
    ensure_swift
    compile_catalogues
    unset LANGUAGE LC_ALL LC_MESSAGES LC_NUMERIC
    export LANG=C.UTF-8
    soak "${1:-20}"
}

run_publish() {
    root_setup
    ensure_packages "${build_packages[@]}" "${flatpak_packages[@]}"
    # As root, as `dev flatpak`: the same stand-ins and offline flatpak-builder.
    as_root /usr/bin/python3 "$repo/meson-helpers/publish.py" "$@"
}

run_screenshots() {
    root_setup
    ensure_packages "${build_packages[@]}" "${test_packages[@]}" "${screenshot_packages[@]}"
    ensure_swift
    swift_checked build --scratch-path "$scratch"
    compile_catalogues
    as_caller "$repo/meson-helpers/take-screenshots.sh" "$(bin_path)/virtual-tourist"
}

run_bench() {
    root_setup
    ensure_packages "${build_packages[@]}" "${test_packages[@]}" "${bench_packages[@]}"
    ensure_swift
    # Built as the Flatpak builds it (meson's static_swift_stdlib): the Swift runtime and
    # Foundation linked in, not loaded as 14 shared libraries at start (P4). Its own build folder,
    # so switching does not rebuild the development binaries.
    local release=(swift build -c release --static-swift-stdlib --scratch-path "$scratch/bench-build")
    as_caller "${release[@]}"
    export VT_APP="${VT_APP:-$(as_caller "${release[@]}" --show-bin-path)/virtual-tourist}"
    as_caller mkdir -p "$scratch/bench"
    # The floor programs (Tests/Benchmarks/floors.py), compiled here so they use the same GTK,
    # libadwaita and libshumate as the app. The libraries' headers come in as system headers:
    # a warning in them (libshumate 1.4 has one) is not the project's.
    local modules=(libadwaita-1 shumate-1.0) cflags floor
    cflags=$(pkg-config --cflags "${modules[@]}" | sed 's/\(^\| \)-I/\1-isystem /g')
    for floor in floor_grid floor_start floor_viewer; do
        # shellcheck disable=SC2046,SC2086 # the flags are meant to split into words
        as_caller gcc -O2 -Wall -Wextra -o "$scratch/bench/${floor/_/-}" "Tests/Benchmarks/$floor.c" \
            $cflags $(pkg-config --libs "${modules[@]}") -lm
    done
    as_caller dbus-run-session -- /usr/bin/python3 Tests/Benchmarks/bench.py --floors "$scratch/bench" "$@"
}
