#!/usr/bin/env python3
"""A stand-in for xdg-desktop-portal's Settings on the test's session bus, switchable by the
test: libadwaita's AdwStyleManager reads the desktop's colour scheme from
org.freedesktop.portal.Settings (namespace org.freedesktop.appearance, key color-scheme:
0 no preference, 1 prefer dark, 2 prefer light) and follows its SettingChanged signal, so the
app's real style switch runs and the test decides what the desktop prefers.

Owns org.freedesktop.portal.Desktop with Settings version 2: Read (the old form, whose answer is
a variant inside a variant, as libadwaita 1.7 reads it), ReadOne, ReadAll; other keys are
"not found", as the real portal says. stdin, one word a line: `dark` or `light` switches
color-scheme and emits SettingChanged; each is acknowledged on stdout once the signal is out.
Prints READY once it owns the name."""
from __future__ import annotations

import sys

from gi.repository import GLib

import portal_bus

INTERFACE = "org.freedesktop.portal.Settings"
NODE = """<node>
  <interface name="org.freedesktop.portal.Settings">
    <method name="Read"><arg type="s" direction="in"/><arg type="s" direction="in"/>
      <arg type="v" direction="out"/></method>
    <method name="ReadOne"><arg type="s" direction="in"/><arg type="s" direction="in"/>
      <arg type="v" direction="out"/></method>
    <method name="ReadAll"><arg type="as" direction="in"/><arg type="a{sa{sv}}" direction="out"/></method>
    <signal name="SettingChanged"><arg type="s"/><arg type="s"/><arg type="v"/></signal>
    <property name="version" type="u" access="read"/>
  </interface>
</node>"""
APPEARANCE = "org.freedesktop.appearance"
SCHEMES = {"light": 0, "dark": 1}   # 0 is "no preference", which libadwaita draws light


def main() -> None:
    state = {"color-scheme": SCHEMES["dark" if "--dark" in sys.argv else "light"]}

    def value(namespace: str, key: str) -> GLib.Variant | None:
        if namespace == APPEARANCE and key == "color-scheme":
            return GLib.Variant("u", state["color-scheme"])
        return None

    def call(connection, sender, path, interface, method, parameters, invocation):
        if method == "ReadAll":
            (namespaces,) = parameters.unpack()
            wanted = not namespaces or any(n in (APPEARANCE, "org.freedesktop.*", "") for n in namespaces)
            answer = {APPEARANCE: {"color-scheme": value(APPEARANCE, "color-scheme")}} if wanted else {}
            invocation.return_value(GLib.Variant("(a{sa{sv}})", (answer,)))
            return
        namespace, key = parameters.unpack()
        found = value(namespace, key)
        if found is None:
            invocation.return_dbus_error("org.freedesktop.portal.Error.NotFound", "Requested setting not found")
        elif method == "Read":
            invocation.return_value(GLib.Variant("(v)", (GLib.Variant("v", found),)))
        else:
            invocation.return_value(GLib.Variant("(v)", (found,)))

    def get_property(connection, sender, path, interface, name):
        return GLib.Variant("u", 2)

    def command(word: str) -> None:
        if word in SCHEMES:
            state["color-scheme"] = SCHEMES[word]
            portal_bus.broadcast(INTERFACE, "SettingChanged",
                                 GLib.Variant("(ssv)", (APPEARANCE, "color-scheme", value(APPEARANCE, "color-scheme"))))
            print(word, flush=True)

    portal_bus.serve(NODE, call, get_property, command)


if __name__ == "__main__":
    main()
