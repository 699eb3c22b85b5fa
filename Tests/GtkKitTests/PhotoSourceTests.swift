import Foundation
import GtkKit
import ImageSniffing
import Platform
import TouristModel
import XCTest

/// Flickr and Commons sources and the album loader, end to end through the real libsoup client
/// against the loopback service, with each fault mode.
final class PhotoSourceTests: XCTestCase {
    private var service: LoopbackService!
    private var directory: URL!
    private let paris = Coordinate(latitude: 48.8584, longitude: 2.2945)

    override func setUpWithError() throws {
        service = try LoopbackService()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vt-sources-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        service = nil
        try? FileManager.default.removeItem(at: directory)
    }

    @MainActor private func client() -> SoupClient { SoupClient(userAgent: "VirtualTourist/test", timeout: 2) }

    @MainActor private func flickr(key: String = "test-key", cell: Int = 120) -> FlickrSource {
        FlickrSource(apiKey: key, endpoint: service.url("/flickr/services/rest/"), cellPixels: cell, client: client())
    }

    @MainActor private func commons() -> CommonsSource {
        CommonsSource(endpoint: service.url("/commons/w/api.php"), client: client())
    }

    private func search(_ source: @escaping @MainActor () -> PhotoSource, page: Int = 1, perPage: Int = 21,
                        at coordinate: Coordinate? = nil) throws -> PhotoPage {
        let place = coordinate ?? paris
        return try MainActor.assumeIsolated {
            let source = source()
            return try onMainLoop { try await source.search(near: place, page: page, perPage: perPage) }
        }
    }

    func testFlickrPagesThroughLibsoup() throws {
        let first = try search { self.flickr() }
        XCTAssertEqual(first.total, 95)
        XCTAssertEqual(first.pages, 5)
        XCTAssertEqual(first.photos.count, 21)
        // Odd pages carry numbers as strings ("older responses"): decoded all the same.
        let second = try search({ self.flickr() }, page: 2)
        XCTAssertEqual(second.page, 2)
        XCTAssertEqual(second.photos.count, 21)
        XCTAssertTrue(Set(first.photos.map(\.sourceId)).isDisjoint(with: second.photos.map(\.sourceId)))
        XCTAssertTrue(first.photos.allSatisfy { $0.imageURL.absoluteString.hasPrefix(service.baseURL.absoluteString) })
    }

    /// The loopback answers with Flickr's documented sizes (240, 320, 500, 640, 800, 1024 px;
    /// landscapes, portraits, panoramas, small originals): each photo's cell image is the
    /// smallest listed one whose shorter side covers the cell, 120 px at scale 1, 240 at 2.
    func testFlickrAlbumsTakeTheSmallestListedSizeThatCovers() throws {
        let sides = [240, 320, 500, 640, 800, 1024]
        for cell in [120, 240] {
            let photos = try search({ self.flickr(cell: cell) }, perPage: 40).photos
            XCTAssertEqual(photos.count, 40)
            var suffixes: [String: Int] = [:]
            for photo in photos {
                // The loopback's file names end with the Flickr suffix, then the pixel size.
                let name = photo.imageURL.deletingPathExtension().lastPathComponent
                let parts = name.split(separator: "_")
                let size = parts[parts.count - 1].split(separator: "x").compactMap { Int($0) }
                XCTAssertEqual([photo.width, photo.height], [size[0], size[1]], name)
                let (shorter, longer) = (min(size[0], size[1]), max(size[0], size[1]))
                let index = try XCTUnwrap(sides.firstIndex(of: longer), name)
                if index > 0 {
                    XCTAssertLessThan(shorter * sides[index - 1] / longer, cell, "\(name): a smaller size covers the cell")
                }
                // Covers, or is the largest the photo has (nothing sharper for the viewer then).
                XCTAssertTrue(shorter >= cell || photo.largeURL == nil, name)
                suffixes[parts.count == 4 ? String(parts[2]) : "", default: 0] += 1
            }
            XCTAssertEqual(photos.filter { $0.largeURL?.lastPathComponent.contains("_b_") ?? false }.count, 25,
                           "the viewer's 1024 px size wherever the original is larger")
            // At 1×: 240 px (file _m) for most, the 500 px size (no suffix) for panoramas; at 2×: 320 px.
            XCTAssertEqual(cell == 120 ? suffixes["m"] : suffixes["n"], cell == 120 ? 34 : 29, "\(suffixes)")
        }
    }

    func testCommonsFollowsContinuationAndSkipsNonImages() throws {
        let page = try search({ self.commons() }, perPage: 30)
        XCTAssertEqual(page.photos.count, 30)
        XCTAssertFalse(page.photos.contains { $0.title.contains("Clip") }, "video files are skipped")
        XCTAssertFalse(page.photos.contains { $0.author.contains("<") }, "the Artist HTML is stripped")
        let searches = try service.stats().requests.filter { $0.target == "search" }
        XCTAssertGreaterThan(searches.count, 1, "results beyond the first response came through `continue`")
    }

    func testEmptyAreaHasNoPhotos() throws {
        let empty = Coordinate(latitude: 0.2, longitude: 0.3)
        XCTAssertEqual(try search({ self.flickr() }, at: empty).photos, [])
        XCTAssertEqual(try search({ self.commons() }, at: empty).photos, [])
    }

    func testSearchFaultsBecomeTypedErrors() throws {
        let cases: [(String, PhotoSourceError)] = [
            ("flickr100", .invalidAPIKey),
            ("flickr105", .serviceUnavailable("Flickr")),
            ("http503", .serviceUnavailable("Flickr")),
            ("http429", .rateLimited("Flickr", retryAfter: 60)),
            ("http500", .http(500)),
        ]
        for (mode, expected) in cases {
            try service.control("fault?mode=\(mode)&target=search&count=1")
            XCTAssertThrowsError(try search { self.flickr() }, mode) { error in
                XCTAssertEqual(error as? PhotoSourceError, expected, mode)
                XCTAssertFalse((error as? PhotoSourceError)?.errorDescription?.isEmpty ?? true, "a message for people")
            }
        }
        for (mode, expected) in [("malformed_json", PhotoSourceError.malformedResponse("Wikimedia Commons")),
                                 ("truncated_json", .cutOff)] {
            try service.control("fault?mode=\(mode)&target=search&count=1")
            XCTAssertThrowsError(try search { self.commons() }, mode) { XCTAssertEqual($0 as? PhotoSourceError, expected, mode) }
        }
        try service.control("fault?mode=stall&target=search&count=1")
        XCTAssertThrowsError(try search { self.flickr() }) { XCTAssertEqual($0 as? PhotoSourceError, .timedOut) }
        XCTAssertThrowsError(try search { self.flickr(key: "invalid") }) { XCTAssertEqual($0 as? PhotoSourceError, .invalidAPIKey) }
    }

    // MARK: The album loader

    private func fillAlbum(perPage: Int = 12, at coordinate: Coordinate? = nil,
                           arm: (() throws -> Void)? = nil) throws -> (AlbumState, Store) {
        let store = try Store(databaseURL: directory.appendingPathComponent("tourist.sqlite"),
                              photosDirectory: directory.appendingPathComponent("photos"))
        let place = coordinate ?? paris
        let pin = try store.addPin(latitude: place.latitude, longitude: place.longitude)
        try arm?()
        let state = try MainActor.assumeIsolated {
            let loader = try AlbumLoader(pin: pin, store: store, source: commons(), client: client(), perPage: perPage)
            return try onMainLoop {
                loader.start()
                // Idle until the store delivered the (empty) album the search then fills.
                while loader.isActive || loader.state.isDownloading || loader.state.phase == .idle {
                    try await Task.sleep(nanoseconds: 20_000_000)
                }
                return loader.state
            }
        }
        return (state, store)
    }

    private func photoFiles() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("photos").path)) ?? []
    }

    func testAlbumFillsAndEveryRowHasItsFile() throws {
        let (state, store) = try fillAlbum()
        XCTAssertEqual(state.phase, .ready)
        XCTAssertEqual(state.progress.shown, 12)
        let photos = try store.photos(pinId: 1)
        XCTAssertEqual(photos.count, 12)
        for photo in photos {
            XCTAssertEqual(photo.state, .downloaded)
            let url = try XCTUnwrap(store.fileURL(for: photo))
            XCTAssertTrue(ImageCheck.looksLikeImage(try Data(contentsOf: url)))
        }
        XCTAssertEqual(photoFiles().count, 12)
        XCTAssertTrue(try store.checkIntegrity())
    }

    func testEmptyPlaceEndsEmpty() throws {
        let (state, _) = try fillAlbum(at: Coordinate(latitude: 0.2, longitude: 0.3))
        XCTAssertEqual(state.phase, .empty)
        XCTAssertFalse(state.isDownloading)
        XCTAssertTrue(state.canRequestNewCollection)
    }

    /// Faulty images fail their own cell and leave no file behind; the others arrive.
    func testImageFaultsFailTheirCellWithoutPartialFiles() throws {
        for mode in ["truncated_image", "not_image", "oversized_image", "http500"] {
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let (state, store) = try fillAlbum(perPage: 6) {
                try self.service.control("clear")
                try self.service.control("fault?mode=\(mode)&target=image&count=2")
            }
            XCTAssertEqual(state.phase, .ready, mode)
            XCTAssertEqual(state.cells.filter { if case .failed = $0 { return true } else { return false } }.count, 2, mode)
            XCTAssertEqual(state.progress.shown, 4, mode)
            XCTAssertEqual(photoFiles().count, 4, "\(mode): no file for a failed download, no temporary left")
            XCTAssertEqual(try store.photos(pinId: 1).filter { $0.state == .failed }.count, 2, mode)
        }
    }

    func testSearchFailureShowsReason() throws {
        let (state, _) = try fillAlbum { try self.service.control("fault?mode=http503&target=search&count=1") }
        guard case .searchFailed(let message) = state.phase else { return XCTFail("\(state.phase)") }
        XCTAssertTrue(message.contains("unavailable"), message)
        XCTAssertTrue(state.canRequestNewCollection)
    }
}
