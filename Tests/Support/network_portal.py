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

INTERFACE = "org.freedesktop.portal.NetworkMonitor"
NODE = """<node>
  <interface name="org.freedesktop.portal.NetworkMonitor">
    <method name="GetAvailable"><arg type="b" direction="out"/></method>
    <method name="GetMetered"><arg type="b" direction="out"/></method>
    <method name="GetConnectivity"><arg type="u" direction="out"/></method>
    <method name="GetStatus"><arg type="a{sv}" direction="out"/></method>
    <method name="CanReach"><arg type="s" direction="in"/><arg type="u" direction="in"/>
      <arg type="b" direction="out"/></method>
    <signal name="changed"/>
    <property name="version" type="u" access="read"/>
  </interface>
  <interface name="org.freedesktop.portal.ProxyResolver">
    <method name="Lookup"><arg type="s" direction="in"/><arg type="as" direction="out"/></method>
    <property name="version" type="u" access="read"/>
  </interface>
</node>"""
# GNetworkConnectivity: 1 local only, 4 full.
LOCAL, FULL = 1, 4


def main() -> None:
    log = open(sys.argv[1], "a", buffering=1)
    state = {"available": "--offline" not in sys.argv[2:]}

    def call(connection, sender, path, interface, method, parameters, invocation):
        available = state["available"]
        if method != "Lookup":
            log.write(json.dumps({"method": method, "available": available}) + "\n")
        if method == "Lookup":
            invocation.return_value(GLib.Variant("(as)", (["direct://"],)))
        elif method == "GetStatus":
            invocation.return_value(GLib.Variant("(a{sv})", ({
                "available": GLib.Variant("b", available),
                "metered": GLib.Variant("b", False),
                "connectivity": GLib.Variant("u", FULL if available else LOCAL)},)))
        elif method in ("GetAvailable", "CanReach"):
            invocation.return_value(GLib.Variant("(b)", (available,)))
        elif method == "GetMetered":
            invocation.return_value(GLib.Variant("(b)", (False,)))
        elif method == "GetConnectivity":
            invocation.return_value(GLib.Variant("(u)", (FULL if available else LOCAL,)))

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
