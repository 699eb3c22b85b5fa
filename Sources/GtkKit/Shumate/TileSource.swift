package import CShim
import Foundation
import ImageSniffing
import Translation

/// Raster tiles from a URL template, fetched with the app's SoupSession and cached on disk, and
/// decoded off the main thread into the pixel format GTK draws fastest (`tile_renderer.c`).
@MainActor
public final class TileSource: Object {
    /// `cacheSizeLimit` (bytes) is shared by every source caching in `cacheDirectory`.
    public init(urlTemplate: String, client: SoupClient, cacheDirectory: String, cacheKey: String,
                cacheSizeLimit: UInt32 = 100_000_000) {
        // The key names the template too: tiles cached from one server (the offline demo's
        // loopback service, say) must never stand in for another's.
        let digest = g_compute_checksum_for_string(G_CHECKSUM_SHA256, urlTemplate, -1)!
        let key = cacheKey + "-" + String(cString: digest).prefix(16)
        g_free(digest)
        let dataSource = vt_tile_source_new(urlTemplate, client.session, cacheDirectory, key, cacheSizeLimit) { bytes in
            var size: gsize = 0
            guard let start = g_bytes_get_data(bytes, &size) else { return 0 }
            let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: start), count: Int(size), deallocator: .none)
            return TileSource.isTile(data) ? 1 : 0
        }
        self.dataSource = dataSource!
        let renderer = Self.renderer(over: self.dataSource)
        g_object_unref(UnsafeMutableRawPointer(dataSource))  // the renderers hold it
        super.init(taking: UnsafeMutableRawPointer(renderer))
    }
    package var mapSource: UnsafeMutablePointer<ShumateMapSource> { vt_shumate_map_source(raw) }

    /// A renderer of these tiles for one map (the caller owns it): they share the data source,
    /// its session and cache, but each counts the tiles its own map asks for. A dark one
    /// recolours the tiles as it decodes them (its own id: the map caches tiles per source).
    package func makeRenderer(dark: Bool = false) -> OpaquePointer { Self.renderer(over: dataSource, dark: dark) }

    private static func renderer(over dataSource: OpaquePointer, dark: Bool = false) -> OpaquePointer {
        let renderer = vt_tile_renderer_new(
            dark ? "virtual-tourist-tiles-dark" : "virtual-tourist-tiles", "OpenStreetMap",
            tr("Map data © OpenStreetMap contributors"),
            "https://www.openstreetmap.org/copyright", 0, 19, 256, SHUMATE_MAP_PROJECTION_MERCATOR,
            vt_shumate_data_source(UnsafeMutableRawPointer(dataSource)))!
        vt_tile_renderer_set_dark(renderer, dark.g)
        return renderer
    }

    /// Whether `data` is a whole image of tile size (`VT_TILE_MAX_SIDE`): anything else is
    /// neither drawn nor cached.
    nonisolated static func isTile(_ data: Data) -> Bool {
        guard ImageCheck.looksLikeImage(data), let size = ImageCheck.pixelSize(of: data) else { return false }
        let sides = 1...Int(VT_TILE_MAX_SIDE)
        return sides.contains(size.width) && sides.contains(size.height)
    }
    private let dataSource: OpaquePointer  // owned by the renderer, which this object owns

    /// One tile as the renderer would get it (for tests: the map itself asks through libshumate).
    func tileData(x: Int32, y: Int32, zoom: Int32) async throws -> Data {
        typealias Reply = ClosureBox<(Data?, String?) -> Void>
        let source = vt_shumate_data_source(UnsafeMutableRawPointer(dataSource))
        return try await withCheckedThrowingContinuation { continuation in
            let reply = Reply { data, message in
                if let data { continuation.resume(returning: data) } else {
                    continuation.resume(throwing: TileError(message: message ?? "no tile"))
                }
            }
            shumate_data_source_get_tile_data_async(source, x, y, zoom, nil, { source, result, box in
                let reply = Unmanaged<Reply>.fromOpaque(box!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let bytes = shumate_data_source_get_tile_data_finish(vt_shumate_data_source(source), result, &error)
                defer {
                    if let bytes { g_bytes_unref(bytes) }
                    if let error { g_error_free(error) }
                }
                guard let bytes else { return reply.body(nil, error.map { String(cString: $0.pointee.message) }) }
                var size: gsize = 0
                let start = g_bytes_get_data(bytes, &size)
                reply.body(start.map { Data(bytes: $0, count: Int(size)) } ?? Data(), nil)
            }, Unmanaged.passRetained(reply).toOpaque())
        }
    }
}

extension TileSource {
    /// A tile as a map fills it (for tests): the texture's size, memory format and pixels (in
    /// GTK's default format), or the error.
    func filledTile(x: Int32, y: Int32, zoom: Int32) async throws -> (width: Int32, height: Int32, format: GdkMemoryFormat, pixels: Data) {
        typealias Reply = ClosureBox<(String?) -> Void>
        let tile = shumate_tile_new_full(UInt32(x), UInt32(y), 256, UInt32(zoom))!
        defer { g_object_unref(UnsafeMutableRawPointer(tile)) }
        let message: String? = await withCheckedContinuation { continuation in
            let reply = Reply { message in continuation.resume(returning: message) }
            shumate_map_source_fill_tile_async(mapSource, tile, nil, { source, result, box in
                let reply = Unmanaged<Reply>.fromOpaque(box!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let filled = shumate_map_source_fill_tile_finish(vt_shumate_map_source(source), result, &error)
                defer { if let error { g_error_free(error) } }
                reply.body(filled != 0 ? nil : error.map { String(cString: $0.pointee.message) } ?? "not filled")
            }, Unmanaged.passRetained(reply).toOpaque())
        }
        if let message { throw TileError(message: message) }
        guard let paintable = shumate_tile_get_paintable(tile), let texture = vt_gdk_texture(UnsafeMutableRawPointer(paintable)) else {
            throw TileError(message: "filled without a texture")
        }
        let (width, height) = (gdk_texture_get_width(texture), gdk_texture_get_height(texture))
        var pixels = Data(count: Int(width * height * 4))
        pixels.withUnsafeMutableBytes { gdk_texture_download(texture, $0.baseAddress!.assumingMemoryBound(to: guchar.self), gsize(width * 4)) }
        return (width, height, gdk_texture_get_format(texture), pixels)
    }
}

/// Why a tile could not be had (GLib's message).
struct TileError: Error { let message: String }
