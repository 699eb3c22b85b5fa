internal import CShim
import Foundation
import ImageSniffing

/// A GdkTexture reference. GdkTexture is immutable and safe to create on any thread.
public final class Texture: @unchecked Sendable {
    package let pointer: OpaquePointer
    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

    public var width: Int32 { gdk_texture_get_width(pointer) }
    public var height: Int32 { gdk_texture_get_height(pointer) }

    /// Decodes an image file, made no larger than `maxSize` px on its longer side (gdk-pixbuf's
    /// JPEG loader scales while decoding; a smaller image keeps its size), applies its EXIF
    /// orientation, and never runs on the main thread.
    /// Nil, without decoding, for an image of more than `ImageCheck.maxPixels` (a PNG is
    /// allocated whole before it is scaled) or one whose header gdk-pixbuf cannot read.
    public static func load(path: String, maxSize: Int32) async -> Texture? {
        await load(path: path, maxSize: maxSize, square: nil)
    }

    /// `square`: the centre square of the decoded image, made exactly `square` px a side.
    private static func load(path: String, maxSize: Int32, square: Int32?) async -> Texture? {
        await Task.detached(priority: .userInitiated) { () -> Texture? in
            var width: Int32 = 0, height: Int32 = 0
            guard gdk_pixbuf_get_file_info(path, &width, &height) != nil, width > 0, height > 0,
                  Int(width) <= ImageCheck.maxPixels / Int(height) else { return nil }
            var error: UnsafeMutablePointer<GError>?
            // -1 leaves a side as it is: "at scale" would otherwise enlarge a small photo to fit.
            let bound: Int32 = max(width, height) > maxSize ? maxSize : -1
            guard let pixbuf = gdk_pixbuf_new_from_file_at_scale(path, bound, bound, true.g, &error) else {
                if let error { g_error_free(error) }
                return nil
            }
            defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
            guard let oriented = gdk_pixbuf_apply_embedded_orientation(pixbuf) else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(oriented)) }
            guard let square else { return drawable(Texture(taking: gdk_texture_new_for_pixbuf(oriented))) }
            guard let cropped = centreSquare(of: oriented, side: square) else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(cropped)) }
            return drawable(Texture(taking: gdk_texture_new_for_pixbuf(cropped)))
        }.value
    }

    /// The texture in cairo's pixel format (premultiplied, what `gdk_texture_download` gives).
    /// GTK's software renderer converts a texture to that format every time it draws it, and
    /// for another format (a JPEG's RGB) the conversion runs on GTK's thread pool while the main
    /// thread spins in sched_yield (GTK 4.18, `gdk_memory_convert`): a fifth of the main
    /// thread's time while an album filled. Converted once here, a draw is a memcpy.
    private static func drawable(_ texture: Texture) -> Texture {
        let (width, height) = (Int(texture.width), Int(texture.height))
        let stride = width * 4
        guard let data = g_malloc(gsize(stride * height)) else { return texture }
        gdk_texture_download(texture.pointer, data.assumingMemoryBound(to: guchar.self), gsize(stride))
        let bytes = g_bytes_new_take(data, gsize(stride * height))
        defer { g_bytes_unref(bytes) }
        #if _endian(little)
        let format = GDK_MEMORY_B8G8R8A8_PREMULTIPLIED  // GDK_MEMORY_DEFAULT, a macro Swift does not import
        #else
        let format = GDK_MEMORY_A8R8G8B8_PREMULTIPLIED
        #endif
        return Texture(taking: gdk_memory_texture_new(Int32(width), Int32(height), format, bytes, gsize(stride)))
    }

    /// MIME types gdk-pixbuf has a loader for on this system.
    public static var decodableMIMETypes: Set<String> {
        var types = Set<String>()
        let formats = gdk_pixbuf_get_formats()
        var node = formats
        while let current = node {
            if let format = current.pointee.data,
               let names = gdk_pixbuf_format_get_mime_types(OpaquePointer(format)) {
                var index = 0
                while let name = names[index] {
                    types.insert(String(cString: name))
                    index += 1
                }
                g_strfreev(names)
            }
            node = current.pointee.next
        }
        g_slist_free(formats)
        return types
    }

    /// The centre square of `pixbuf`, `side` px a side (a new reference).
    private static func centreSquare(of pixbuf: OpaquePointer, side: Int32) -> OpaquePointer? {
        let (width, height) = (gdk_pixbuf_get_width(pixbuf), gdk_pixbuf_get_height(pixbuf))
        let shorter = min(width, height)
        guard shorter > 0, let centre = gdk_pixbuf_new_subpixbuf(pixbuf, (width - shorter) / 2,
                                                                 (height - shorter) / 2, shorter, shorter) else { return nil }
        // The decoder's rounding can leave the shorter side a pixel short; a small photo is enlarged,
        // as a covering picture would draw it anyway.
        guard shorter != side else { return centre }
        defer { g_object_unref(UnsafeMutableRawPointer(centre)) }
        return gdk_pixbuf_scale_simple(centre, side, side, GDK_INTERP_BILINEAR)
    }

    /// Decodes the `side`×`side` square at an image's centre, what a square cell covered by it
    /// shows: the image decodes just large enough (a 640×480 photo for a 120 px cell at 1/4
    /// scale inside libjpeg, four times less work and memory than fitting it in twice the cell),
    /// and every cell's texture has the same size, so putting one in a cell redraws the cell
    /// without laying out the window again (GtkPicture re-measures only when the size changes).
    public static func load(path: String, covering side: Int32) async -> Texture? {
        var width: Int32 = 0, height: Int32 = 0
        // Reads the header only.
        guard gdk_pixbuf_get_file_info(path, &width, &height) != nil, width > 0, height > 0 else { return nil }
        let scale = min(1, Double(side) / Double(min(width, height)))
        let longer = Int32((Double(max(width, height)) * scale).rounded(.up))
        return await load(path: path, maxSize: max(side, longer), square: side)
    }
}
