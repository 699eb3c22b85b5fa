import Foundation
import XCTest
@testable import TouristModel

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
}
