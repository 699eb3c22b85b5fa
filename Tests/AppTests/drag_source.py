"""A file manager's drag, for the drop tests: a GTK 4 window titled "Drag Source" whose label,
dragged, offers one file as text/uri-list over X11's XDND protocol, as Files does.

    python3 drag_source.py PATH

prints READY once its window is shown, BEGAN when a drag starts, and ACCEPTED when the window
under the drag says it would take the file (XDND's status answer), so that a test moves on and
releases the button on these effects, not after a while."""
from __future__ import annotations

import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gdk, Gio, GLib, Gtk  # noqa: E402


def main() -> None:
    uri = Gio.File.new_for_path(sys.argv[1]).get_uri()
    app = Gtk.Application(application_id="org.example.VirtualTouristDragSource",
                          flags=Gio.ApplicationFlags.NON_UNIQUE)

    def prepare(_source, _x, _y):
        return Gdk.ContentProvider.new_for_bytes("text/uri-list", GLib.Bytes.new(f"{uri}\r\n".encode()))

    def began(_source, drag):
        print("BEGAN", flush=True)
        def selected(drag, _property):
            if drag.get_selected_action() & Gdk.DragAction.COPY:
                print("ACCEPTED", flush=True)
        drag.connect("notify::selected-action", selected)

    def activate(app):
        window = Gtk.ApplicationWindow(application=app, title="Drag Source")
        window.set_default_size(200, 120)
        label = Gtk.Label(label="places file")
        source = Gtk.DragSource(actions=Gdk.DragAction.COPY)
        source.connect("prepare", prepare)
        source.connect("drag-begin", began)
        label.add_controller(source)
        window.set_child(label)
        window.present()
        GLib.idle_add(lambda: print("READY", flush=True))

    app.connect("activate", activate)
    app.run([])


if __name__ == "__main__":
    main()
