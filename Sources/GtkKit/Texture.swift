import Foundation

/// A GdkTexture reference. GdkTexture is immutable and safe to create on any thread.
public final class Texture: @unchecked Sendable {
    public let pointer: OpaquePointer
    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

    public var width: Int32 { gdk_texture_get_width(pointer) }
    public var height: Int32 { gdk_texture_get_height(pointer) }

    /// Decodes an image file no larger than `maxSize` px on its longer side (gdk-pixbuf's JPEG
    /// loader scales while decoding), applies its EXIF orientation, and never runs on the main thread.
    public static func load(path: String, maxSize: Int32) async -> Texture? {
        await Task.detached(priority: .userInitiated) { () -> Texture? in
            var error: UnsafeMutablePointer<GError>?
            guard let pixbuf = gdk_pixbuf_new_from_file_at_scale(path, maxSize, maxSize, true.g, &error) else {
                if let error { g_error_free(error) }
                return nil
            }
            defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
            guard let oriented = gdk_pixbuf_apply_embedded_orientation(pixbuf) else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(oriented)) }
            return Texture(taking: gdk_texture_new_for_pixbuf(oriented))
        }.value
    }
}
