#!/usr/bin/env python3
"""A stand-in for xdg-desktop-portal's network monitor on the test's session bus, switchable by
the test: the loopback service cannot take the host's network away, but GIO's portal monitor
(gio/gnetworkmonitorportal.c, used when GIO_USE_PORTALS=1 or inside Flatpak) believes whatever
org.freedesktop.portal.Desktop answers. So the app's real GNetworkMonitor code runs, and the test
decides what it reports.

Owns org.freedesktop.portal.Desktop with org.freedesktop.portal.NetworkMonitor version 3 (what
GLib 2.84 asks: GetStatus, falling back to GetAvailable/GetMetered/GetConnectivity; `changed`
makes it ask again) and ProxyResolver.Lookup, answered "direct://": with portals on, GIO's proxy
resolver asks the portal for every request. Nothing else (the file-chooser stand-in of the
Flatpak smoke test is another process on another bus).

stdin, one word a line: `offline` or `online` switches the state and emits `changed`; each line
is acknowledged on stdout ("offline"/"online") once the signal is out. Prints READY once it owns
the name. Every call is logged as a JSON line in the file given as argument."""
from __future__ import annotations

import json
import sys

from gi.repository import GLib

import portal_bus

INTERFACE = portal_bus.NETWORK_MONITOR
NODE = f"<node>{portal_bus.NETWORK_MONITOR_XML}{portal_bus.PROXY_RESOLVER_XML}\n</node>"


def main() -> None:
    log = open(sys.argv[1], "a", buffering=1)
    state = {"available": "--offline" not in sys.argv[2:]}

    def call(connection, sender, path, interface, method, parameters, invocation):
        if method != "Lookup":
            log.write(json.dumps({"method": method, "available": state["available"]}) + "\n")
        portal_bus.answer_network(method, invocation, state["available"])

    def get_property(connection, sender, path, interface, name):
        return GLib.Variant("u", 3 if interface == INTERFACE else 1)

    def command(word: str) -> None:
        if word in ("online", "offline"):
            state["available"] = word == "online"
            # The monitor then asks GetStatus again.
            portal_bus.broadcast(INTERFACE, "changed", None)
            print(word, flush=True)

    portal_bus.serve(NODE, call, get_property, command)


if __name__ == "__main__":
    main()
