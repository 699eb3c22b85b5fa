package import CShim

// Conversions between C values and Swift ones, for GtkKit's own use (and its tests').

extension Bool {
    /// GLib's gboolean.
    package var g: gboolean { self ? 1 : 0 }
}

extension gboolean {
    package var isTrue: Bool { self != 0 }
}

/// A C string owned by GLib (g_free'd after copying), or nil.
package func takeString(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return String(cString: pointer)
}

package func string(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
}

/// `strings` as GLib's NULL-terminated `const char * const *`, valid while `body` runs.
func withNullTerminatedCStrings<Result>(_ strings: [String],
                                        _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> Result) -> Result {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

/// Whether `instance` is a `type` (or a subclass of it), checked before a cast that would
/// otherwise log a critical.
func isInstance(_ instance: gpointer, of type: GType) -> Bool {
    g_type_check_instance_is_a(instance.assumingMemoryBound(to: GTypeInstance.self), type).isTrue
}
