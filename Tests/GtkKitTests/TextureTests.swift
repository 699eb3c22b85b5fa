import CShim
import Foundation
import GtkKit
import XCTest

/// Photos decoded for the grid: scaled while decoding and stored in the format GTK's software
/// renderer draws without converting.
final class TextureTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("texture-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: folder)
    }

    /// A 640×480 JPEG of one colour.
    private func writeJPEG(red: UInt8, green: UInt8, blue: UInt8) throws -> String {
        let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, 640, 480)!
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        gdk_pixbuf_fill(pixbuf, UInt32(red) << 24 | UInt32(green) << 16 | UInt32(blue) << 8 | 0xff)
        let path = folder.appendingPathComponent("photo.jpg").path
        var error: UnsafeMutablePointer<GError>?
        guard gdk_pixbuf_savev(pixbuf, path, "jpeg", nil, nil, &error) != 0 else {
            defer { g_error_free(error) }
            throw NSError(domain: "TextureTests", code: 1,
                          userInfo: [NSLocalizedDescriptionKey: String(cString: error!.pointee.message)])
        }
        return path
    }

    func testCoveringLoadIsCellSizedAndInTheRenderersFormat() throws {
        let path = try writeJPEG(red: 200, green: 40, blue: 10)
        let texture = try MainActor.assumeIsolated {
            try onMainLoop { await Texture.load(path: path, covering: 120) }
        }
        let loaded = try XCTUnwrap(texture)
        XCTAssertEqual(loaded.height, 120)
        XCTAssertEqual(loaded.width, 160)
        #if _endian(little)
        XCTAssertEqual(gdk_texture_get_format(loaded.pointer), GDK_MEMORY_B8G8R8A8_PREMULTIPLIED)
        // The colour survives (JPEG is lossy: within a few steps); cairo's ARGB32 is B, G, R, A in memory here.
        var pixel = [UInt8](repeating: 0, count: Int(loaded.width) * 4 * Int(loaded.height))
        pixel.withUnsafeMutableBufferPointer { gdk_texture_download(loaded.pointer, $0.baseAddress, gsize(loaded.width) * 4) }
        let (blue, green, red, alpha) = (Int(pixel[0]), Int(pixel[1]), Int(pixel[2]), Int(pixel[3]))
        XCTAssertEqual(alpha, 255)
        XCTAssertEqual(red, 200, accuracy: 6)
        XCTAssertEqual(green, 40, accuracy: 6)
        XCTAssertEqual(blue, 10, accuracy: 6)
        #endif
    }

    func testUndecodableFileGivesNil() throws {
        let path = folder.appendingPathComponent("broken.jpg").path
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: path))
        let texture = try MainActor.assumeIsolated {
            try onMainLoop { await Texture.load(path: path, covering: 120) }
        }
        XCTAssertNil(texture)
    }
}
