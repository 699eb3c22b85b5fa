import Foundation
import CShim
@testable import GtkKit
import ImageSniffing
import TouristModel
import XCTest

/// The map's tile source (VtTileSource and its file cache) against the loopback service: what
/// reaches the renderer, what is cached, and how big the cache may grow.
final class TileSourceTests: XCTestCase {
    private var service: LoopbackService!
    private var directory: URL!
    // Created and used on the main thread, where XCTest runs the tests.
    nonisolated(unsafe) private var client: SoupClient!

    override func setUpWithError() throws {
        service = try LoopbackService()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vt-tiles-\(UUID().uuidString)")
        client = MainActor.assumeIsolated { SoupClient(userAgent: "VirtualTourist/test", timeout: 5) }
    }

    override func tearDownWithError() throws {
        MainActor.assumeIsolated { client = nil }
        service = nil
        try? FileManager.default.removeItem(at: directory)
    }

    private var template: String { service.baseURL.absoluteString + "/tiles/{z}/{x}/{y}.png" }

    @MainActor private func source(template: String? = nil, sizeLimit: UInt32 = 100_000_000) -> TileSource {
        TileSource(urlTemplate: template ?? self.template, client: client, cacheDirectory: directory.path,
                   cacheKey: "test", cacheSizeLimit: sizeLimit)
    }

    @MainActor private func tile(_ tiles: TileSource, zoom: Int32, x: Int32, y: Int32) throws -> Data {
        try onMainLoop { try await tiles.tileData(x: x, y: y, zoom: zoom) }
    }

    private func requests(_ path: String) throws -> Int {
        try service.stats().requests.filter { $0.path == path }.count
    }

    /// The cached tile files (libshumate keeps them as <dir>/<key>/<z>/<x>/<y>.png).
    private func cachedFiles() -> [URL] {
        let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey])
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "png" }
    }

    private func cachedBytes() -> Int {
        cachedFiles().reduce(0) { $0 + ((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
    }

    /// Runs the loop (the cache writes on it) until a cached file holds exactly `data`.
    @MainActor private func waitUntilCached(_ data: Data, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(MainLoop.run(until: { self.cachedFiles().contains { (try? Data(contentsOf: $0)) == data } }, timeout: 10),
                      "the tile was never cached", file: file, line: line)
    }

    /// Without a Content-Length, only the image itself can tell a tile was cut short: such a tile
    /// is an error, never cached (a week of blank squares), and fetched again next time.
    func testTileCutShortIsNeitherDrawnNorCached() throws {
        // Without and with Content-Length.
        try assertRefusedThenFetchedAgain(faults: ["truncated_tile", "truncated_image"], zoom: 4, x: 3, y: 2,
                                          "a cut-short tile is an error")
    }

    /// A tile cut short and cached before tiles were checked (by an earlier version) is fetched
    /// again, not shown, fresh as it looks.
    func testCutShortTileInTheCacheIsFetchedAgain() throws {
        try MainActor.assumeIsolated {
            let good = try tile(source(), zoom: 5, x: 4, y: 6)
            waitUntilCached(good)
            for file in cachedFiles() { try good.prefix(good.count / 2).write(to: file) }
            XCTAssertEqual(try tile(source(), zoom: 5, x: 4, y: 6), good)
        }
        XCTAssertEqual(try requests("/tiles/5/4/6.png"), 2)
    }

    /// A stale cached tile beats a cut-short refresh, and stays cached as it was.
    func testStaleTileIsKeptWhenItsRefreshIsCutShort() throws {
        try MainActor.assumeIsolated {
            let good = try tile(source(), zoom: 5, x: 7, y: 9)
            waitUntilCached(good)
            let week = Date().addingTimeInterval(-8 * 24 * 3600)
            for file in cachedFiles() { try FileManager.default.setAttributes([.modificationDate: week], ofItemAtPath: file.path) }
            try service.control("fault?mode=truncated_tile&target=tile&count=1")
            XCTAssertEqual(try tile(source(), zoom: 5, x: 7, y: 9), good, "the stale copy, not the cut-short body")
            XCTAssertEqual(cachedFiles().compactMap { try? Data(contentsOf: $0) }, [good])
        }
        XCTAssertEqual(try requests("/tiles/5/7/9.png"), 2, "the stale tile was revalidated")
    }

    /// A tile body has a size limit, enforced while reading (no Content-Length) and before
    /// reading (with one); a refused body is not cached.
    func testHugeTileIsRefused() throws {
        try assertRefusedThenFetchedAgain(faults: ["huge_tile", "oversized_image"], zoom: 3, x: 1, y: 1,
                                          "a 30 MB tile is refused")
    }

    /// For each fault of the loopback service: the faulty tile is an error; a new source on the
    /// same cache (as after a restart) fetches it again and gets the image.
    private func assertRefusedThenFetchedAgain(faults: [String], zoom: Int32, x: Int32, y: Int32, _ what: String,
                                               file: StaticString = #filePath, line: UInt = #line) throws {
        for mode in faults {
            try service.control("fault?mode=\(mode)&target=tile&count=1")
            try MainActor.assumeIsolated {
                XCTAssertThrowsError(try tile(source(), zoom: zoom, x: x, y: y), "\(mode): \(what)", file: file, line: line)
                XCTAssertTrue(ImageCheck.looksLikeImage(try tile(source(), zoom: zoom, x: x, y: y)), mode, file: file, line: line)
            }
            XCTAssertEqual(try requests("/tiles/\(zoom)/\(x)/\(y).png"), 2, "\(mode): fetched again, not taken from the cache",
                           file: file, line: line)
            try service.control("reset")
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// A tile reaches the map as a texture in cairo's pixel format, so GTK's software renderer
    /// draws it without converting it on every frame, with the pixels gdk-pixbuf decodes.
    func testTileIsFilledInCairosPixelFormat() throws {
        try MainActor.assumeIsolated {
            let tiles = source()
            let filled = try onMainLoop { try await tiles.filledTile(x: 3, y: 2, zoom: 4) }
            XCTAssertEqual(filled.format, GDK_MEMORY_B8G8R8A8_PREMULTIPLIED)  // GDK_MEMORY_DEFAULT here
            let served = try tile(tiles, zoom: 4, x: 3, y: 2)
            let (width, height, pixels) = try XCTUnwrap(Self.decoded(served))
            XCTAssertEqual(filled.width, width)
            XCTAssertEqual(filled.height, height)
            XCTAssertEqual(filled.pixels, pixels, "the tile's pixels changed on the way")
        }
    }

    /// A complete PNG of 20000 × 20000 pixels in 50 kB is not a tile: it is refused before
    /// its 1.6 GB are allocated, not drawn, not cached, and asked for again next time.
    func testDecompressionBombTileIsRefused() throws {
        try service.control("fault?mode=huge_png&target=tile&count=1")
        try MainActor.assumeIsolated {
            let tiles = source()
            XCTAssertThrowsError(try onMainLoop { try await tiles.filledTile(x: 2, y: 1, zoom: 3) })
            let filled = try onMainLoop { try await tiles.filledTile(x: 2, y: 1, zoom: 3) }
            XCTAssertEqual(filled.width, 256)
        }
        XCTAssertEqual(try requests("/tiles/3/2/1.png"), 2, "fetched again, not taken from the cache")
    }

    /// gdk-pixbuf's decoding of `data`, downloaded by GTK in its default format.
    private static func decoded(_ data: Data) -> (Int32, Int32, Data)? {
        let loader = gdk_pixbuf_loader_new()!
        defer { g_object_unref(UnsafeMutableRawPointer(loader)) }
        let written = data.withUnsafeBytes { gdk_pixbuf_loader_write(loader, $0.baseAddress!.assumingMemoryBound(to: guchar.self), gsize(data.count), nil) }
        guard written != 0, gdk_pixbuf_loader_close(loader, nil) != 0, let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader) else { return nil }
        let texture = gdk_texture_new_for_pixbuf(pixbuf)!
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        let (width, height) = (gdk_texture_get_width(texture), gdk_texture_get_height(texture))
        var pixels = Data(count: Int(width * height * 4))
        pixels.withUnsafeMutableBytes { gdk_texture_download(texture, $0.baseAddress!.assumingMemoryBound(to: guchar.self), gsize(width * 4)) }
        return (width, height, pixels)
    }

    /// Tiles cached from one server (say the loopback service of the offline demo) are never
    /// shown for another URL template.
    func testCacheIsKeptApartPerURLTemplate() throws {
        let other = template + "?style=other"
        try MainActor.assumeIsolated {
            waitUntilCached(try tile(source(), zoom: 6, x: 10, y: 20))
            _ = try tile(source(template: other), zoom: 6, x: 10, y: 20)
        }
        XCTAssertEqual(try requests("/tiles/6/10/20.png"), 2, "the other template's tile came from its server")
        try MainActor.assumeIsolated { _ = try tile(source(), zoom: 6, x: 10, y: 20) }
        XCTAssertEqual(try requests("/tiles/6/10/20.png"), 2, "each template still has its own cached tile")
    }

    /// libshumate's index of the cache keeps its journal in a write-ahead log (no journal file made
    /// and deleted on the main thread for every tile), keeps the incremental auto-vacuum its
    /// purges count on, and still indexes: a tile cached by one source is served to the next (a
    /// restart) without a request.
    func testCacheIndexIsWrittenAheadAndStillServesTiles() throws {
        try MainActor.assumeIsolated { waitUntilCached(try tile(source(), zoom: 5, x: 3, y: 4)) }
        let header = try XCTUnwrap(try FileHandle(forReadingFrom: directory.appendingPathComponent("cache.db"))
            .read(upToCount: 68)).map { $0 }
        // The file format's write and read versions (bytes 18 and 19): 2 in WAL mode, 1 in legacy.
        XCTAssertEqual(Array(header[18...19]), [2, 2])
        // The incremental-vacuum flag (bytes 64 to 67): non-zero.
        XCTAssertNotEqual(Array(header[64...67]), [0, 0, 0, 0], "the cache would never shrink")
        try MainActor.assumeIsolated { _ = try tile(source(), zoom: 5, x: 3, y: 4) }
        XCTAssertEqual(try requests("/tiles/5/3/4.png"), 1, "the second source took the tile from the cache")
    }

    /// The cache is purged back to its size limit while the app runs, not only at start-up.
    func testCacheIsPurgedToItsSizeLimit() throws {
        let limit = 20_000  // about 10 loopback tiles of 2 kB
        try MainActor.assumeIsolated {
            let tiles = source(sizeLimit: UInt32(limit))
            for x in Int32(0)..<40 { _ = try tile(tiles, zoom: 6, x: x, y: 0) }
            // One purge step (a tenth of the limit) and a tile may be over the limit between purges.
            XCTAssertTrue(MainLoop.run(until: { self.cachedBytes() <= limit + limit / 10 + 2_500 }, timeout: 10),
                          "\(cachedBytes()) bytes of tiles cached with a limit of \(limit)")
            XCTAssertGreaterThan(cachedBytes(), 0, "the purge keeps tiles up to the limit")
        }
    }
}
