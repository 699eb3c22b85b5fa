package import CShim
import Foundation

/// Signals as Swift closures. Each connection retains its closure box; GLib calls the destroy
/// notify when the handler is disconnected or the instance finalised, which releases it.
/// Handlers run on the main thread (GTK emits there), hence `MainActor.assumeIsolated`.

/// The destroy notify of every connection: releases the box, whatever closure type it holds.
private let releaseBox: GClosureNotify = { data, _ in Unmanaged<AnyObject>.fromOpaque(data!).release() }

private func retain<Body>(_ body: Body) -> gpointer {
    Unmanaged.passRetained(ClosureBox(body)).toOpaque()
}

private func box<Body>(_ data: gpointer?, _ type: Body.Type) -> Body {
    Unmanaged<ClosureBox<Body>>.fromOpaque(data!).takeUnretainedValue().body
}

public typealias Handler = @MainActor () -> Void
public typealias BoolHandler = @MainActor () -> Bool
package typealias PointerHandler = @MainActor (gpointer?) -> Void
public typealias PointHandler = @MainActor (Double, Double) -> Void
public typealias ClickHandler = @MainActor (Int, Double, Double) -> Void
public typealias KeyHandler = @MainActor (Key, Modifiers) -> Bool
public typealias DoubleHandler = @MainActor (Double) -> Void
package typealias UIntHandler = @MainActor (UInt32) -> Void
public typealias ScrollHandler = @MainActor (Double, Double) -> Bool
public typealias FilesHandler = @MainActor ([URL]) -> Bool

/// A connected handler, to disconnect it by.
public struct HandlerID: Hashable, Sendable {
    let value: gulong
}

@MainActor
package enum Signal {
    @discardableResult
    package static func connect(_ instance: gpointer, _ name: String, _ handler: @escaping Handler) -> HandlerID {
        HandlerID(value: vt_connect(instance, name, { _, data in
            MainActor.assumeIsolated { box(data, Handler.self)() }
        }, retain(handler), releaseBox))
    }

    /// For signals whose handler returns gboolean (e.g. "close-request": true stops the default).
    @discardableResult
    package static func connect(_ instance: gpointer, _ name: String, returning handler: @escaping BoolHandler) -> HandlerID {
        HandlerID(value: vt_connect_bool(instance, name, { _, data in
            MainActor.assumeIsolated { box(data, BoolHandler.self)().g }
        }, retain(handler), releaseBox))
    }

    /// For signals with one pointer argument (list item factories, "notify", GAction "activate").
    @discardableResult
    package static func connect(_ instance: gpointer, _ name: String, pointer handler: @escaping PointerHandler) -> HandlerID {
        HandlerID(value: vt_connect_pointer(instance, name, { _, argument, data in
            MainActor.assumeIsolated { box(data, PointerHandler.self)(argument) }
        }, retain(handler), releaseBox))
    }

    /// For (x, y) signals such as GtkGestureLongPress "pressed".
    @discardableResult
    package static func connect(_ instance: gpointer, _ name: String, point handler: @escaping PointHandler) -> HandlerID {
        HandlerID(value: vt_connect_point(instance, name, { _, x, y, data in
            MainActor.assumeIsolated { box(data, PointHandler.self)(x, y) }
        }, retain(handler), releaseBox))
    }

    /// For GtkGestureClick "pressed"/"released" (n_press, x, y).
    @discardableResult
    package static func connect(_ instance: gpointer, _ name: String, click handler: @escaping ClickHandler) -> HandlerID {
        HandlerID(value: vt_connect_click(instance, name, { _, count, x, y, data in
            MainActor.assumeIsolated { box(data, ClickHandler.self)(Int(count), x, y) }
        }, retain(handler), releaseBox))
    }

    /// For GtkEventControllerKey "key-pressed"; return true when handled.
    @discardableResult
    package static func connect(_ instance: gpointer, _ name: String, key handler: @escaping KeyHandler) -> HandlerID {
        HandlerID(value: vt_connect_key(instance, name, { _, keyval, _, state, data in
            MainActor.assumeIsolated { box(data, KeyHandler.self)(Key(keyval: keyval), Modifiers(state)).g }
        }, retain(handler), releaseBox))
    }

    /// For signals with one guint argument (GtkGridView "activate"), or one gboolean
    /// (GNetworkMonitor "network-changed"), which is passed the same way.
    @discardableResult
    package static func connect(_ instance: gpointer, _ name: String, uint handler: @escaping UIntHandler) -> HandlerID {
        HandlerID(value: vt_connect_uint(instance, name, { _, value, data in
            MainActor.assumeIsolated { box(data, UIntHandler.self)(value) }
        }, retain(handler), releaseBox))
    }

    /// For signals with one double argument, such as GtkGestureZoom "scale-changed".
    @discardableResult
    package static func connect(_ instance: gpointer, _ name: String, double handler: @escaping DoubleHandler) -> HandlerID {
        HandlerID(value: vt_connect_double(instance, name, { _, value, data in
            MainActor.assumeIsolated { box(data, DoubleHandler.self)(value) }
        }, retain(handler), releaseBox))
    }

    /// For GtkEventControllerScroll "scroll" (dx, dy); return true when handled.
    @discardableResult
    package static func connect(_ instance: gpointer, _ name: String, scroll handler: @escaping ScrollHandler) -> HandlerID {
        HandlerID(value: vt_connect_scroll(instance, name, { _, dx, dy, data in
            MainActor.assumeIsolated { box(data, ScrollHandler.self)(dx, dy).g }
        }, retain(handler), releaseBox))
    }

    /// For GtkDropTarget "drop" with a GdkFileList: the dropped files' paths (files without
    /// one, such as a remote location, are left out); return true when taken.
    @discardableResult
    package static func connect(_ instance: gpointer, _ name: String, files handler: @escaping FilesHandler) -> HandlerID {
        HandlerID(value: vt_connect_drop(instance, name, { _, value, _, _, data in
            MainActor.assumeIsolated { box(data, FilesHandler.self)(droppedFiles(value)).g }
        }, retain(handler), releaseBox))
    }

    package static func disconnect(_ instance: gpointer, _ id: HandlerID) {
        g_signal_handler_disconnect(instance, id.value)
    }
}

/// The local paths of a GValue holding a GdkFileList (the list and its files stay the value's).
private func droppedFiles(_ value: UnsafePointer<GValue>?) -> [URL] {
    guard let value, let list = g_value_get_boxed(value) else { return [] }
    let files = gdk_file_list_get_files(OpaquePointer(list))
    defer { g_slist_free(files) }
    var urls: [URL] = []
    var node = files
    while let current = node {
        if let path = g_file_get_path(OpaquePointer(current.pointee.data)) {
            urls.append(URL(fileURLWithPath: String(cString: path)))
            g_free(path)
        }
        node = current.pointee.next
    }
    return urls
}
