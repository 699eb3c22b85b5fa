import CShim
import Foundation
import GtkKit
import ImageSniffing
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

    /// A JPEG of one colour, 640×480 unless told, with its leftmost `stripe` columns white.
    private func writeJPEG(red: UInt8, green: UInt8, blue: UInt8, width: Int32 = 640, height: Int32 = 480,
                           stripe: Int32 = 0) throws -> String {
        let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, width, height)!
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        gdk_pixbuf_fill(pixbuf, UInt32(red) << 24 | UInt32(green) << 16 | UInt32(blue) << 8 | 0xff)
        if stripe > 0, let left = gdk_pixbuf_new_subpixbuf(pixbuf, 0, 0, stripe, height) {
            gdk_pixbuf_fill(left, 0xffff_ffff)
            g_object_unref(UnsafeMutableRawPointer(left))
        }
        let path = folder.appendingPathComponent("photo-\(width)x\(height).jpg").path
        var error: UnsafeMutablePointer<GError>?
        guard gdk_pixbuf_savev(pixbuf, path, "jpeg", nil, nil, &error) != 0 else {
            defer { g_error_free(error) }
            throw NSError(domain: "TextureTests", code: 1,
                          userInfo: [NSLocalizedDescriptionKey: String(cString: error!.pointee.message)])
        }
        return path
    }

    private func pixels(of texture: Texture) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: Int(texture.width) * 4 * Int(texture.height))
        pixels.withUnsafeMutableBufferPointer { gdk_texture_download(texture.pointer, $0.baseAddress, gsize(texture.width) * 4) }
        return pixels
    }

    /// A phone's JPEG may have more pixels than other images (libjpeg scales it down as it
    /// decodes); a PNG that large is refused before it is decoded. The format is the one
    /// gdk-pixbuf names as it reads the size, whatever the file is called.
    func testAJPEGMayBeLargerThanOtherImages() throws {
        let jpeg = try writeJPEG(red: 200, green: 100, blue: 50, width: 6000, height: 3000)
        let png = folder.appendingPathComponent("large.jpg").path
        let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, 6000, 3000)!
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        gdk_pixbuf_fill(pixbuf, 0x336699ff)
        XCTAssertNotEqual(gdk_pixbuf_savev(pixbuf, png, "png", nil, nil, nil), 0)
        XCTAssertGreaterThan(6000 * 3000, ImageCheck.maxPixels)
        let (fromJPEG, fromPNG) = try MainActor.assumeIsolated {
            try onMainLoop { (await Texture.load(path: jpeg, covering: 120), await Texture.load(path: png, covering: 120)) }
        }
        XCTAssertEqual(fromJPEG?.width, 120)
        XCTAssertNil(fromPNG, "18 MP of PNG is allocated whole: refused")
    }

    /// A cell shows the centre square of its photo: the texture is that square at cell size, the
    /// same size for every photo, so a photo arriving in a cell needs no new layout.
    func testCoveringLoadIsTheCentreSquareAtCellSize() throws {
        // 640×480 at 1/4 is 160×120: the square drops 20 px (80 of the photo's) on each side.
        let path = try writeJPEG(red: 20, green: 160, blue: 40, stripe: 60)
        let texture = try MainActor.assumeIsolated {
            try onMainLoop { await Texture.load(path: path, covering: 120) }
        }
        let loaded = try XCTUnwrap(texture)
        XCTAssertEqual(loaded.width, 120)
        XCTAssertEqual(loaded.height, 120)
        let square = pixels(of: loaded)
        let firstColumn = stride(from: 0, to: square.count, by: 120 * 4).map { Int(square[$0 + 1]) }
        XCTAssertFalse(firstColumn.contains { $0 > 220 }, "the white stripe at the photo's left edge was not cropped away")

        // Smaller than the cell: enlarged to it, as a covering picture would draw it.
        let small = try writeJPEG(red: 20, green: 160, blue: 40, width: 40, height: 30)
        let enlarged = try XCTUnwrap(try MainActor.assumeIsolated {
            try onMainLoop { await Texture.load(path: small, covering: 120) }
        })
        XCTAssertEqual(enlarged.width, 120)
        XCTAssertEqual(enlarged.height, 120)
    }

    /// The size comes from the file's first 256 KB when its frame header is there, and from
    /// gdk-pixbuf when metadata pushes it further (a camera's EXIF, XMP and ICC blocks): both
    /// decode the same square (a size misread from the blocks refuses the photo or misplaces it).
    func testCoveringLoadReadsTheSizeBeforeAndAfterLargeMetadata() throws {
        let plain = try Data(contentsOf: URL(fileURLWithPath: try writeJPEG(red: 20, green: 160, blue: 40,
                                                                            width: 960, height: 480, stripe: 200)))
        for (blocks, name) in [(2, "near.jpg"), (5, "far.jpg")] {
            // APP2 blocks of 64 KB each, after the start-of-image marker.
            var bytes = plain.prefix(2)
            for _ in 0..<blocks {
                bytes += Data([0xFF, 0xE2, 0xFF, 0xFF]) + Data(repeating: 0x41, count: 0xFFFF - 2)
            }
            bytes += plain.dropFirst(2)
            let path = folder.appendingPathComponent(name).path
            try bytes.write(to: URL(fileURLWithPath: path))
            let texture = try XCTUnwrap(try MainActor.assumeIsolated {
                try onMainLoop { await Texture.load(path: path, covering: 120) }
            }, name)
            XCTAssertEqual(texture.width, 120, name)
            XCTAssertEqual(texture.height, 120, name)
            // 960×480 at 1/4 is 240×120: the square is its middle, the white stripe cropped away.
            let square = pixels(of: texture)
            let firstColumn = stride(from: 0, to: square.count, by: 120 * 4).map { Int(square[$0 + 1]) }
            XCTAssertFalse(firstColumn.contains { $0 > 220 }, "\(name): not the photo's centre square")
        }
    }

    func testCoveringLoadIsInTheRenderersFormat() throws {
        let path = try writeJPEG(red: 200, green: 40, blue: 10)
        let texture = try MainActor.assumeIsolated {
            try onMainLoop { await Texture.load(path: path, covering: 120) }
        }
        let loaded = try XCTUnwrap(texture)
        #if _endian(little)
        XCTAssertEqual(gdk_texture_get_format(loaded.pointer), GDK_MEMORY_B8G8R8A8_PREMULTIPLIED)
        // The colour survives (JPEG is lossy: within a few steps); cairo's ARGB32 is B, G, R, A in memory here.
        let pixel = pixels(of: loaded)
        let (blue, green, red, alpha) = (Int(pixel[0]), Int(pixel[1]), Int(pixel[2]), Int(pixel[3]))
        XCTAssertEqual(alpha, 255)
        XCTAssertEqual(red, 200, accuracy: 6)
        XCTAssertEqual(green, 40, accuracy: 6)
        XCTAssertEqual(blue, 10, accuracy: 6)
        #endif
    }

    /// The viewer's photo is decoded no larger than the view, keeping its shape and colours, and
    /// says its own size; one smaller than the view is not enlarged.
    func testFittedLoadFitsTheViewAndKnowsTheFullSize() throws {
        let path = try writeJPEG(red: 200, green: 40, blue: 10, width: 1024, height: 768)
        let fitted = try XCTUnwrap(try MainActor.assumeIsolated {
            try onMainLoop { await Texture.load(path: path, fitting: 700, 700) }
        })
        XCTAssertEqual([fitted.texture.width, fitted.texture.height], [700, 525])
        XCTAssertEqual([fitted.fullWidth, fitted.fullHeight], [1024, 768])
        XCTAssertLessThan(fitted.texture.width, fitted.fullWidth, "not every pixel of the file")
        #if _endian(little)
        XCTAssertEqual(gdk_texture_get_format(fitted.texture.pointer), GDK_MEMORY_B8G8R8A8_PREMULTIPLIED)
        let middle = (262 * 700 + 350) * 4
        let pixel = pixels(of: fitted.texture)
        XCTAssertEqual(Int(pixel[middle + 2]), 200, accuracy: 6)
        XCTAssertEqual(Int(pixel[middle + 1]), 40, accuracy: 6)
        XCTAssertEqual(Int(pixel[middle + 3]), 255)
        #endif

        // Far larger than the view (over twice): the decoder halves first, the shape still kept.
        let tall = try XCTUnwrap(try MainActor.assumeIsolated {
            try onMainLoop { await Texture.load(path: path, fitting: 200, 100) }
        })
        XCTAssertEqual(tall.texture.height, 100)
        XCTAssertEqual(Double(tall.texture.width), 133.3, accuracy: 1)

        let small = try XCTUnwrap(try MainActor.assumeIsolated {
            try onMainLoop { await Texture.load(path: path, fitting: 2000, 2000) }
        })
        XCTAssertEqual([small.texture.width, small.texture.height], [1024, 768])
        XCTAssertEqual([small.fullWidth, small.fullHeight], [1024, 768], "every pixel of the file")
    }

    /// Scaled in bands on several threads, a photo has the pixels it has scaled in one piece
    /// (pixman's fixed-point sampling may round a level apart): each band is the rows it stands
    /// for, with no seam. Rows of changing colour, so a band drawn from the wrong rows shows.
    func testFittingInBandsGivesTheSamePixelsAsInOnePiece() throws {
        let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, 1024, 768)!
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        for top in stride(from: Int32(0), to: 768, by: 5) {
            let rows = gdk_pixbuf_new_subpixbuf(pixbuf, 0, top, 1024, min(5, 768 - top))!
            let shade = UInt32(top / 3 % 256)
            gdk_pixbuf_fill(rows, shade << 24 | (255 - shade) << 16 | UInt32(top % 7 * 30) << 8 | 0xff)
            g_object_unref(UnsafeMutableRawPointer(rows))
        }
        let whole = Texture(pixbuf: pixbuf)
        let one = try XCTUnwrap(Texture.scaled(whole, toFit: (700, 700), bands: 1))
        XCTAssertEqual([one.width, one.height], [700, 525])
        for bands in [2, 3, 8] {
            let banded = try XCTUnwrap(Texture.scaled(whole, toFit: (700, 700), bands: bands))
            XCTAssertEqual([banded.width, banded.height], [700, 525])
            let (a, b) = (pixels(of: banded), pixels(of: one))
            let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
            XCTAssertLessThanOrEqual(worst, 1, "\(bands) bands differ from one piece by \(worst) levels")
        }
    }

    /// A photo just downloaded decodes from its bytes as from its file; bytes that are not an
    /// image, or whose header says too many pixels, give nil.
    func testFittedLoadFromBytesMatchesTheFile() throws {
        let path = try writeJPEG(red: 200, green: 40, blue: 10, width: 1024, height: 768)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let (fromFile, fromBytes) = try MainActor.assumeIsolated {
            try onMainLoop { (await Texture.load(path: path, fitting: 700, 700), await Texture.load(data: data, fitting: 700, 700)) }
        }
        let file = try XCTUnwrap(fromFile), bytes = try XCTUnwrap(fromBytes)
        XCTAssertEqual([bytes.texture.width, bytes.texture.height], [700, 525])
        XCTAssertEqual([bytes.fullWidth, bytes.fullHeight], [1024, 768])
        XCTAssertEqual(pixels(of: bytes.texture), pixels(of: file.texture))

        let junk = try MainActor.assumeIsolated {
            try onMainLoop { await Texture.load(data: Data("not a picture".utf8), fitting: 700, 700) }
        }
        XCTAssertNil(junk)
        // A JPEG header claiming 60000 × 60000 px over a few bytes of data.
        var huge = data.prefix(600)
        if let sof = huge.firstRange(of: Data([0xFF, 0xC0])) {
            let at = sof.lowerBound + 5
            huge.replaceSubrange(at..<at + 4, with: [0xEA, 0x60, 0xEA, 0x60])
        }
        let refused = try MainActor.assumeIsolated {
            try onMainLoop { await Texture.load(data: huge, fitting: 700, 700) }
        }
        XCTAssertNil(refused)
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
