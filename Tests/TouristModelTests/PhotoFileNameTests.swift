import Foundation
import TouristModel
import XCTest

/// Save As… and Export Album name a photo by the one rule of `PhotoFileName`.
final class PhotoFileNameTests: XCTestCase {
    private let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10] + Array("JFIF".utf8) + [0])
    private let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 16))

    func testATitleKeepsItsWordsAndGetsItsBytesExtension() {
        XCTAssertEqual(PhotoFileName.name(title: "Eiffel Tower at night", fallback: "Photo", head: jpeg),
                       "Eiffel Tower at night.jpg")
        XCTAssertEqual(PhotoFileName.name(title: "Eiffel Tower at night", fallback: "Photo", head: png),
                       "Eiffel Tower at night.png", "a PNG is saved as what it is, whatever its source called it")
    }

    func testSeparatorsReservedAndControlCharactersBecomeOneSpace() {
        XCTAssertEqual(PhotoFileName.stem("a/b\\c:d*e?f\"g<h>i|j", fallback: "Photo"), "a b c d e f g h i j")
        XCTAssertEqual(PhotoFileName.stem("tab\there\nnew  line", fallback: "Photo"), "tab here new line")
    }

    func testNoHiddenFileAndNoParentFolder() {
        XCTAssertEqual(PhotoFileName.stem("../../etc/passwd", fallback: "Photo"), "etc passwd")
        XCTAssertEqual(PhotoFileName.stem(".bashrc", fallback: "Photo"), "bashrc")
        XCTAssertEqual(PhotoFileName.stem(" ..  ", fallback: "Photo 3"), "Photo 3")
        XCTAssertEqual(PhotoFileName.stem("", fallback: "Photo"), "Photo")
    }

    func testALongTitleIsCutAtAHundredCharacters() {
        let stem = PhotoFileName.stem(String(repeating: "Ü", count: 300), fallback: "Photo")
        XCTAssertEqual(stem.count, 100)
        let spaced = PhotoFileName.stem(String(repeating: "a", count: 99) + " b", fallback: "Photo")
        XCTAssertEqual(spaced, String(repeating: "a", count: 99), "no trailing space where it was cut")
    }

    func testBytesOfNoKnownImageKeepTheFallbackExtension() {
        XCTAssertEqual(PhotoFileName.name(title: "Map", fallback: "Photo", head: Data("<html>".utf8)), "Map.jpg")
        XCTAssertEqual(PhotoFileName.name(title: "Map", fallback: "Photo", head: Data(), fallbackExtension: ""), "Map")
    }

    func testTheHeadOfAFileIsItsFirstBytesAndNoneForAMissingFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("head-\(UUID().uuidString).png")
        try (png + Data(count: 1000)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(PhotoFileName.head(of: file).count, 64)
        XCTAssertEqual(PhotoFileName.fileExtension(of: PhotoFileName.head(of: file)), "png")
        XCTAssertEqual(PhotoFileName.head(of: file.appendingPathExtension("gone")), Data())
    }
}
