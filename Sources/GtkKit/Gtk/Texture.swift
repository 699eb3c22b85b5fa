internal import CShim
import Foundation
import ImageSniffing
import Synchronization

/// A GdkTexture reference. GdkTexture is immutable and safe to create on any thread.
public final class Texture: @unchecked Sendable {
    package let pointer: OpaquePointer
    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    /// A texture over a GdkPixbuf's pixels (for tests that draw their own pictures).
    package convenience init(pixbuf: OpaquePointer) { self.init(taking: gdk_texture_new_for_pixbuf(pixbuf)) }
    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

    public var width: Int32 { gdk_texture_get_width(pointer) }
    public var height: Int32 { gdk_texture_get_height(pointer) }

    /// Decodes an image file, made no larger than `maxSize` px on its longer side (gdk-pixbuf's
    /// JPEG loader scales while decoding; a smaller image keeps its size), applies its EXIF
    /// orientation, and never runs on the main thread.
    /// Nil, without decoding, for an image of more than `ImageCheck.maxPixels` (a PNG is
    /// allocated whole before it is scaled; a JPEG may have `maxJPEGPixels`) or one whose
    /// header gdk-pixbuf cannot read.
    public static func load(path: String, maxSize: Int32) async -> Texture? {
        await load(path: path, maxSize: maxSize, square: nil)
    }

    /// A photo decoded to fit a view, and the size it has in full (upright).
    public struct Fitted: Sendable {
        public let texture: Texture
        public let fullWidth: Int32
        public let fullHeight: Int32
    }

    /// Decodes an image made no larger than `width`×`height` px (its shape kept, never enlarged),
    /// as `load(path:maxSize:)` does. GTK's software renderer scales a larger texture down again
    /// on every frame, with a slow filter. The last halving or less is cairo's bilinear scaling,
    /// several times faster there than gdk-pixbuf's.
    public static func load(path: String, fitting width: Int32, _ height: Int32) async -> Fitted? {
        await load(.file(path), fitting: width, height)
    }

    /// The same from an image's bytes in memory: a photo just downloaded is decoded while its
    /// file is still being written.
    public static func load(data: Data, fitting width: Int32, _ height: Int32) async -> Fitted? {
        await load(.bytes(data), fitting: width, height)
    }

    private static func load(_ source: Source, fitting width: Int32, _ height: Int32) async -> Fitted? {
        guard width > 0, height > 0 else { return nil }
        let decoded = await decode(source, fit: (width, height)) { fileWidth, fileHeight in
            let scale = min(1, Double(width) / Double(fileWidth), Double(height) / Double(fileHeight))
            // Twice the fitted size: the JPEG decoder halves as it decodes, at no cost.
            let twice = Int32((Double(max(fileWidth, fileHeight)) * scale * 2).rounded(.up))
            return min(4096, max(1, twice))
        }
        guard let decoded else { return nil }
        // A quarter turn (EXIF) swaps the file's sides.
        return Fitted(texture: decoded.texture, fullWidth: decoded.turned ? decoded.fileHeight : decoded.fileWidth,
                      fullHeight: decoded.turned ? decoded.fileWidth : decoded.fileHeight)
    }

    /// `square`: the centre square of the decoded image, made exactly `square` px a side.
    private static func load(path: String, maxSize: Int32, square: Int32?) async -> Texture? {
        await decode(.file(path), square: square) { _, _ in maxSize }?.texture
    }

    /// An encoded image: a file, or bytes in memory.
    private enum Source: Sendable {
        case file(String)
        case bytes(Data)

        /// Width and height from the header (as stored: before the EXIF orientation), and the
        /// most pixels decoded of it: more for a JPEG, which libjpeg scales down as it decodes.
        var header: (width: Int32, height: Int32, maxPixels: Int)? {
            var width: Int32 = 0, height: Int32 = 0
            let isJPEG: Bool
            switch self {
            case .file(let path):
                // The header read here when it can be: where gdk-pixbuf hands its formats to glycin
                // (GNOME 49 and later), gdk_pixbuf_get_file_info copies the whole file and
                // decodes it in a loader process, as costly as the decode that follows.
                if let head = Self.head(of: path), let read = Self.size(of: head) {
                    (width, height, isJPEG) = read
                    break
                }
                // The format gdk-pixbuf recognised as it read the size: no second read of the file.
                guard let format = gdk_pixbuf_get_file_info(path, &width, &height) else { return nil }
                let name = gdk_pixbuf_format_get_name(format)
                defer { g_free(name) }
                isJPEG = name.map { String(cString: $0) } == "jpeg"
            case .bytes(let data):
                guard let read = Self.size(of: data) else { return nil }
                (width, height, isJPEG) = read
            }
            guard width > 0 && height > 0 else { return nil }
            return (width, height, isJPEG ? ImageCheck.maxJPEGPixels : ImageCheck.maxPixels)
        }

        /// The size in an image's header, and whether it is a JPEG.
        static func size(of data: Data) -> (width: Int32, height: Int32, isJPEG: Bool)? {
            guard let size = ImageCheck.pixelSize(of: data), let width = Int32(exactly: size.width),
                  let height = Int32(exactly: size.height) else { return nil }
            return (width, height, ImageCheck.signature(of: data.prefix(16)) == .jpeg)
        }

        /// A file's first 256 KB: a JPEG's frame header comes after its EXIF block (64 KB at
        /// most); a PNG or WebP read only in part is left to gdk-pixbuf.
        static func head(of path: String) -> Data? {
            guard let file = FileHandle(forReadingAtPath: path) else { return nil }
            defer { try? file.close() }
            return try? file.read(upToCount: 256 * 1024)
        }

        /// Decoded no larger than `bound` px a side (-1: as it is).
        func pixbuf(bound: Int32) -> OpaquePointer? {
            var error: UnsafeMutablePointer<GError>?
            defer { if let error { g_error_free(error) } }
            switch self {
            case .file(let path):
                return gdk_pixbuf_new_from_file_at_scale(path, bound, bound, true.g, &error)
            case .bytes(let data):
                let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
                defer { g_bytes_unref(bytes) }
                let stream = g_memory_input_stream_new_from_bytes(bytes)
                defer { g_object_unref(UnsafeMutableRawPointer(stream)) }
                return gdk_pixbuf_new_from_stream_at_scale(stream, bound, bound, true.g, nil, &error)
            }
        }
    }

    /// A decoded image: `turned` if its EXIF orientation turned it a quarter; the file's sides
    /// as stored.
    private struct Decoded: Sendable {
        let texture: Texture
        let turned: Bool
        let fileWidth: Int32
        let fileHeight: Int32
    }

    /// Decodes no larger than `maxSize(fileWidth, fileHeight)` px a side, the header read once.
    /// `fit`: then scaled to fit; `square`: then its centre square, that many px a side.
    private static func decode(_ source: Source, square: Int32? = nil, fit: (width: Int32, height: Int32)? = nil,
                               maxSize: @escaping @Sendable (Int32, Int32) -> Int32) async -> Decoded? {
        await Task.detached(priority: .userInitiated) { () -> Decoded? in
            guard let (width, height, maxPixels) = source.header, Int(width) <= maxPixels / Int(height) else { return nil }
            let limit = maxSize(width, height)
            // -1 leaves a side as it is: "at scale" would otherwise enlarge a small photo to fit.
            let bound: Int32 = max(width, height) > limit ? limit : -1
            guard let pixbuf = source.pixbuf(bound: bound) else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
            guard let oriented = gdk_pixbuf_apply_embedded_orientation(pixbuf) else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(oriented)) }
            let turned = gdk_pixbuf_get_width(oriented) != gdk_pixbuf_get_width(pixbuf)
            let texture: Texture?
            if let fit {
                texture = scaled(Texture(taking: gdk_texture_new_for_pixbuf(oriented)), toFit: fit)
            } else if let square {
                guard let cropped = centreSquare(of: oriented, side: square) else { return nil }
                defer { g_object_unref(UnsafeMutableRawPointer(cropped)) }
                texture = drawable(Texture(taking: gdk_texture_new_for_pixbuf(cropped)))
            } else {
                texture = drawable(Texture(taking: gdk_texture_new_for_pixbuf(oriented)))
            }
            return texture.map { Decoded(texture: $0, turned: turned, fileWidth: width, fileHeight: height) }
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
        return Texture(taking: gdk_memory_texture_new(Int32(width), Int32(height), memoryFormat, bytes, gsize(stride)))
    }

    /// cairo's ARGB32 in memory order.
    #if _endian(little)
    private static let memoryFormat = GDK_MEMORY_B8G8R8A8_PREMULTIPLIED  // GDK_MEMORY_DEFAULT, a macro Swift does not import
    #else
    private static let memoryFormat = GDK_MEMORY_A8R8G8B8_PREMULTIPLIED
    #endif

    /// `texture` scaled down to fit `box` with cairo's bilinear filter, in cairo's pixel format
    /// (see `drawable`); as it is if it fits. A large one is scaled in `bands` horizontal bands at
    /// once, one a core: a large version's scaling is on the way from its bytes to the screen.
    package static func scaled(_ texture: Texture, toFit box: (width: Int32, height: Int32),
                               bands: Int = defaultBands) -> Texture? {
        let (width, height) = (texture.width, texture.height)
        let scale = min(1, Double(box.width) / Double(width), Double(box.height) / Double(height))
        guard scale < 1 else { return drawable(texture) }
        let fitted = (width: max(1, Int32((Double(width) * scale).rounded())),
                      height: max(1, Int32((Double(height) * scale).rounded())))
        // The scaled pixels are drawn straight into the memory the texture then owns.
        let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, fitted.width))
        let sourceStride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, width))
        guard stride > 0, sourceStride > 0, let data = g_malloc(gsize(stride * Int(fitted.height))),
              let sourcePixels = g_malloc(gsize(sourceStride * Int(height))) else { return nil }
        defer { g_free(sourcePixels) }
        let bytes = g_bytes_new_take(data, gsize(stride * Int(fitted.height)))
        defer { g_bytes_unref(bytes) }
        // gdk_texture_download writes cairo's ARGB32.
        gdk_texture_download(texture.pointer, sourcePixels.assumingMemoryBound(to: guchar.self), gsize(sourceStride))
        let memory = BandMemory(source: sourcePixels.assumingMemoryBound(to: UInt8.self),
                                target: data.assumingMemoryBound(to: UInt8.self))
        // Rows a band: whole rows, the last band taking what is left. Each band has surfaces of its
        // own over the shared pixels (a cairo surface is not to be used by two threads at once);
        // the source is only read.
        let count = max(1, min(bands, Int(fitted.height) / 64))
        let rows = Int(fitted.height) / count
        let failed = Mutex(false)
        inParallel(count) { band in
            let top = band * rows
            let bandRows = band == count - 1 ? Int(fitted.height) - top : rows
            let from = cairo_image_surface_create_for_data(memory.source, CAIRO_FORMAT_ARGB32, width, height, Int32(sourceStride))
            let into = cairo_image_surface_create_for_data(memory.target + top * stride, CAIRO_FORMAT_ARGB32, fitted.width,
                                                           Int32(bandRows), Int32(stride))
            defer {
                cairo_surface_destroy(from)
                cairo_surface_destroy(into)
            }
            guard cairo_surface_status(from) == CAIRO_STATUS_SUCCESS, cairo_surface_status(into) == CAIRO_STATUS_SUCCESS else {
                return failed.withLock { $0 = true }
            }
            let context = cairo_create(into)
            // The band's rows are where they are in the whole picture: the same pixels either way.
            cairo_translate(context, 0, -Double(top))
            cairo_scale(context, Double(fitted.width) / Double(width), Double(fitted.height) / Double(height))
            cairo_set_source_surface(context, from, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(context), CAIRO_FILTER_BILINEAR)
            cairo_set_operator(context, CAIRO_OPERATOR_SOURCE)
            cairo_paint(context)
            cairo_destroy(context)
            cairo_surface_flush(into)
        }
        guard !failed.withLock({ $0 }) else { return nil }
        return Texture(taking: gdk_memory_texture_new(fitted.width, fitted.height, memoryFormat, bytes, gsize(stride)))
    }

    /// `body(index)` for each index below `count` at once, on a thread each (0 on the caller's).
    /// Not `DispatchQueue.concurrentPerform`: libdispatch's global queues, which it uses, start a
    /// monitor that wakes the app every second from then on (see `Workers.WorkerPool`); the
    /// threads of serial queues are not monitored.
    private static func inParallel(_ count: Int, _ body: (Int) -> Void) {
        withoutActuallyEscaping(body) { body in
            let shared = SharedBody(run: body)
            let others = DispatchGroup()
            for index in 1..<max(1, count) {
                DispatchQueue(label: "io.github.virtualtourist.band").async(group: others) { shared.run(index) }
            }
            body(0)
            others.wait()   // so `body` never outlives this call
        }
    }

    private struct SharedBody: @unchecked Sendable {
        let run: (Int) -> Void
    }

    /// The pixels the bands share: read by all, and written each in rows no other band writes.
    private struct BandMemory: @unchecked Sendable {
        let source: UnsafeMutablePointer<UInt8>
        let target: UnsafeMutablePointer<UInt8>
    }

    /// A band a core, two at most: measured on two cores, where it halves the wait; more bands
    /// would share the same memory bandwidth.
    package static let defaultBands = min(2, ProcessInfo.processInfo.activeProcessorCount)

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
        await decode(.file(path), square: side) { width, height in
            let scale = min(1, Double(side) / Double(min(width, height)))
            return max(side, Int32((Double(max(width, height)) * scale).rounded(.up)))
        }?.texture
    }
}
