import Foundation
import ImageSniffing
@testable import TouristModel
import XCTest

final class ImageCheckTests: XCTestCase {
    func testRealImagesPass() {
        XCTAssertTrue(ImageCheck.looksLikeImage(SampleImages.jpeg))
        XCTAssertTrue(ImageCheck.looksLikeImage(SampleImages.png))
        XCTAssertTrue(ImageCheck.looksLikeImage(SampleImages.gif))
        XCTAssertTrue(ImageCheck.looksLikeImage(SampleImages.webp))
    }

    func testTruncatedImagesFail() {
        for image in [SampleImages.jpeg, SampleImages.png, SampleImages.gif, SampleImages.webp] {
            XCTAssertFalse(ImageCheck.looksLikeImage(image.prefix(image.count - 2)))
            XCTAssertFalse(ImageCheck.looksLikeImage(image.prefix(image.count / 2)))
        }
    }

    func testNonImagesFail() {
        XCTAssertFalse(ImageCheck.looksLikeImage(Data()))
        XCTAssertFalse(ImageCheck.looksLikeImage(Data("<!DOCTYPE html><html>Not found</html>".utf8)))
        XCTAssertFalse(ImageCheck.looksLikeImage(Data(#"{"stat":"fail"}"#.utf8)))
        XCTAssertFalse(ImageCheck.looksLikeImage(Data([0xFF, 0xD8, 0xFF, 0xD9])), "too short to be a JPEG")
    }

    func testZeroPaddingAfterEndMarkerIsAccepted() {
        XCTAssertTrue(ImageCheck.looksLikeImage(SampleImages.jpeg + Data(repeating: 0, count: 16)))
    }

    func testPixelSizeComesFromTheHeader() throws {
        let sizes = [SampleImages.jpeg, SampleImages.png, SampleImages.gif, SampleImages.webp].map {
            ImageCheck.pixelSize(of: $0).map { [$0.width, $0.height] }
        }
        XCTAssertEqual(sizes, [[4, 4], [2, 2], [2, 2], [2, 2]])
        XCTAssertEqual(ImageCheck.format(of: SampleImages.webp), .webp)
        XCTAssertNil(ImageCheck.problem(with: SampleImages.png))
    }

    /// A 1 MB PNG can declare 20000 × 20000 pixels; the loader would allocate 1.6 GB.
    func testDecompressionBombIsRefusedFromItsHeader() {
        let bomb = Self.png(width: 20000, height: 20000)
        XCTAssertTrue(ImageCheck.looksLikeImage(bomb))
        XCTAssertEqual(ImageCheck.problem(with: bomb), .imageTooLarge(width: 20000, height: 20000))
        XCTAssertNil(ImageCheck.problem(with: Self.png(width: 4096, height: 4096)))
        XCTAssertEqual(ImageCheck.problem(with: Self.png(width: 4097, height: 4096)),
                       .imageTooLarge(width: 4097, height: 4096))
        // Products that overflow 32 bits, and zero sizes.
        XCTAssertEqual(ImageCheck.problem(with: Self.png(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF)),
                       .imageTooLarge(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF))
        XCTAssertEqual(ImageCheck.problem(with: Self.png(width: 0, height: 10)), .notAnImage)
    }

    func testFormatsWithoutDecoderAreRefused() {
        XCTAssertEqual(ImageCheck.problem(with: SampleImages.webp, decodable: [.jpeg, .png, .gif]),
                       .unsupportedImage("WebP"))
        XCTAssertNil(ImageCheck.problem(with: SampleImages.webp, decodable: Set(ImageCheck.Format.allCases)))
        XCTAssertEqual(ImageCheck.problem(with: Data("<html>".utf8)), .notAnImage)
    }

    /// A PNG header with the given size and an IEND chunk, which is all the checks read.
    static func png(width: UInt32, height: UInt32) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        for value in [width, height] { bytes += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        bytes += [8, 2, 0, 0, 0, 0, 0, 0, 0]   // depth, colour type, methods, CRC (not checked)
        bytes += [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        return Data(bytes)
    }
}
