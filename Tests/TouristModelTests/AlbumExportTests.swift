import Foundation
import XCTest
@testable import TouristModel

/// Export Album…, on real files in a temporary folder.
final class AlbumExportTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("store"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("target"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private var target: URL { root.appendingPathComponent("target") }

    /// A stored file, whose name says nothing of its format: a whole JPEG (a scan, 100 bytes
    /// or more) or PNG (IHDR first, IEND last) as ImageCheck knows them, with some bytes between.
    private func stored(_ name: String, png: Bool = false) throws -> URL {
        let url = root.appendingPathComponent("store/\(name)")
        let filler = Array(repeating: UInt8(0x20), count: 100) + Array(name.utf8)
        let bytes: [UInt8] = png
            ? [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
                + filler + [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
            : [0xFF, 0xD8, 0xFF, 0xDA] + filler + [0xFF, 0xD9]
        try Data(bytes).write(to: url)
        return url
    }

    private func items() throws -> [AlbumExport.Item] {
        [
            .init(title: "Night in Nice", author: "Ann <b>", license: "CC BY-SA 4.0",
                  pageURL: "https://commons.wikimedia.org/wiki/File:Nice.jpg", file: try stored("a.dat"),
                  coordinate: Coordinate(latitude: 43.7, longitude: 7.27)),
            .init(title: "Night in Nice", author: "Bob", license: "CC0", pageURL: "javascript:alert(1)",
                  file: try stored("b.bin", png: true)),
            .init(title: "../../etc/passwd", author: "", license: "", pageURL: nil, file: try stored("c.dat")),
            .init(title: "", author: "", license: "", pageURL: nil, file: try stored("d.dat")),
            .init(title: "night in nice", author: "", license: "", pageURL: nil, file: try stored("e.dat")),
        ]
    }

    func testFolderHoldsEveryPhotoNamedAfterItsTitleWithCredits() throws {
        var steps: [Int] = []
        let export = AlbumExport(name: "Nice: the coast", pin: Coordinate(latitude: 43.69, longitude: 7.26), items: try items())
        let folder = try export.write(into: target, progress: { done, total in
            XCTAssertEqual(total, 5)
            steps.append(done)
        })
        XCTAssertEqual(folder.lastPathComponent, "Nice the coast", "no colon: a FAT stick refuses it")
        XCTAssertEqual(steps, [1, 2, 3, 4, 5])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(names, ["Night in Nice.jpg", "Night in Nice.png", "Photo 4.jpg", "credits.html", "credits.txt",
                               "etc passwd.jpg", "night in nice (2).jpg", "photos.geojson"])
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("Night in Nice.jpg")),
                       try Data(contentsOf: root.appendingPathComponent("store/a.dat")), "the stored bytes, as they are")
        // Nothing else in the target: no staging folder left.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target.path), [folder.lastPathComponent])
        // Names differing only in case are numbered too: a case-insensitive disk would merge them.

        let text = try String(contentsOf: folder.appendingPathComponent("credits.txt"), encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("Nice: the coast\n"), text)
        XCTAssertTrue(text.contains("Night in Nice.jpg\n  Night in Nice\n  Ann <b>\n  CC BY-SA 4.0\n  https://commons.wikimedia.org/wiki/File:Nice.jpg"), text)
        let html = try String(contentsOf: folder.appendingPathComponent("credits.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("Ann &lt;b&gt;"), "markup in outside data is text")
        XCTAssertFalse(html.contains("href=\"javascript:"), "only web pages become links")
        XCTAssertTrue(html.contains("<a href=\"Night%20in%20Nice.jpg\">Night in Nice</a>"), html)
    }

    func testGeoJSONHasThePinAndTheLocatedPhotos() throws {
        let export = AlbumExport(name: "Nice", pin: Coordinate(latitude: 43.69, longitude: 7.26), items: try items())
        let folder = try export.write(into: target)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("photos.geojson")))
        let collection = try XCTUnwrap(json as? [String: Any])
        XCTAssertEqual(collection["type"] as? String, "FeatureCollection")
        let features = try XCTUnwrap(collection["features"] as? [[String: Any]])
        XCTAssertEqual(features.count, 2, "the pin and the one photo with a location")
        let coordinates = features.map { ($0["geometry"] as? [String: Any])?["coordinates"] as? [Double] }
        XCTAssertEqual(coordinates, [[7.26, 43.69], [7.27, 43.7]], "longitude first (RFC 7946)")
        XCTAssertEqual((features[1]["properties"] as? [String: Any])?["file"] as? String, "Night in Nice.jpg")
    }

    func testAnExistingFolderIsNeverWrittenInto() throws {
        try FileManager.default.createDirectory(at: target.appendingPathComponent("Nice"), withIntermediateDirectories: false)
        let folder = try AlbumExport(name: "Nice", pin: Coordinate(latitude: 0, longitude: 0), items: try items()).write(into: target)
        XCTAssertEqual(folder.lastPathComponent, "Nice (2)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target.appendingPathComponent("Nice").path), [])
    }

    func testCancelledOrFailedLeavesNothingBehind() throws {
        var asked = 0
        let export = AlbumExport(name: "Nice", pin: Coordinate(latitude: 0, longitude: 0), items: try items())
        XCTAssertThrowsError(try export.write(into: target, isCancelled: { asked += 1; return asked > 2 })) {
            XCTAssertEqual($0 as? AlbumExport.Failure, .cancelled)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target.path), [])

        // A file that cannot be read halfway (as a full disk or a vanished file would fail).
        var broken = try items()
        broken[2].file = root.appendingPathComponent("store/missing.jpg")
        XCTAssertThrowsError(try AlbumExport(name: "Nice", pin: Coordinate(latitude: 0, longitude: 0), items: broken).write(into: target)) {
            guard case .notWritten = $0 as? AlbumExport.Failure else { return XCTFail("\($0)") }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target.path), [])
        // A target that does not exist (or cannot be written) fails the same way.
        XCTAssertThrowsError(try export.write(into: root.appendingPathComponent("nowhere")))
    }
}
