package import CShim

/// A strong reference to a GObject, released when the Swift wrapper goes away.
/// Floating references (new widgets) are sunk, so every wrapper owns exactly one reference;
/// containers take their own. The pointers are `package`, for GtkKit and its tests: the app does
/// not import CShim, and works through the wrappers' Swift API.
@MainActor
public class Object {
    // nonisolated(unsafe): read by deinit, which is not main-actor isolated before Swift 6.2;
    // wrappers are created and dropped on the main thread only.
    package nonisolated(unsafe) let object: UnsafeMutablePointer<GObject>

    package init(_ pointer: gpointer) {
        object = vt_object(g_object_ref_sink(pointer))
    }

    package init(_ pointer: OpaquePointer?) {
        object = vt_object(g_object_ref_sink(UnsafeMutableRawPointer(pointer!)))
    }

    /// Wraps an object the caller already holds a full, non-floating reference to.
    package init(taking pointer: gpointer) {
        object = vt_object(pointer)
    }

    package init(taking pointer: OpaquePointer?) {
        object = vt_object(UnsafeMutableRawPointer(pointer!))
    }

    deinit {
        g_object_unref(object)
    }

    package var raw: gpointer { UnsafeMutableRawPointer(object) }

    @discardableResult
    public func on(_ signal: String, _ handler: @escaping Handler) -> HandlerID {
        Signal.connect(raw, signal, handler)
    }

    /// "notify::<property>"
    @discardableResult
    public func onChange(of property: String, _ handler: @escaping Handler) -> HandlerID {
        Signal.connect(raw, "notify::\(property)", pointer: { _ in handler() })
    }
}
