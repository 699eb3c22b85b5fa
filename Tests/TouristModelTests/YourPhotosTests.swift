import Foundation
import ImageSniffing
import PhotoMetadata
import XCTest
@testable import TouristModel

/// The user's own photos (Fixtures/photos, written by make-photos.py): their metadata read with
/// gexiv2, each put at the pin within 100 m or on a new one with the photos near it, first in
/// its album and kept there by New Collection, its bytes copied as they were; Undo takes them out.
@MainActor
final class YourPhotosTests: XCTestCase {
    private var directory: URL!
    private var store: Store!
    private var list: PinList!
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/photos")
    private static let shown: Set<String> = ["image/jpeg", "image/png", "image/webp"]

    override func setUp() async throws {
        directory = try makeTemporaryDirectory(self)
        store = try makeStore(self, in: directory)
        let store = store
        list = PinList(store: { store })
        list.onError = { XCTFail($0) }
    }

    private func fixture(_ name: String) -> URL { Self.fixtures.appendingPathComponent(name) }

    private func read(_ names: [String]) async throws -> PinList.YourPhotosReading {
        try await list.readYourPhotos(names.map(fixture), canShow: Self.shown,
                                      maxPixels: { ImageCheck.maxPixels(mimeType: $0) })
    }

    func testMetadataGivesPositionDateFormatAndSizeForJPEGPNGAndWebP() throws {
        let eiffel = try PhotoMetadata.read(Data(contentsOf: fixture("eiffel.jpg")))
        XCTAssertEqual(eiffel.latitude ?? 0, 48.8584, accuracy: 1e-6)
        XCTAssertEqual(eiffel.longitude ?? 0, 2.2945, accuracy: 1e-6)
        XCTAssertEqual(eiffel.taken, "2019:07:14 15:32:10")
        XCTAssertEqual(eiffel.mimeType, "image/jpeg")
        XCTAssertEqual([eiffel.width, eiffel.height], [64, 48])
        let rio = try PhotoMetadata.read(Data(contentsOf: fixture("rio.png")))
        XCTAssertEqual(rio.latitude ?? 0, -22.9519, accuracy: 1e-6, "south is negative")
        XCTAssertEqual(rio.longitude ?? 0, -43.2105, accuracy: 1e-6, "west is negative")
        XCTAssertEqual(rio.mimeType, "image/png")
        let loaf = try PhotoMetadata.read(Data(contentsOf: fixture("sugarloaf.webp")))
        XCTAssertEqual(loaf.mimeType, "image/webp")
        XCTAssertEqual(loaf.latitude ?? 0, -22.9486, accuracy: 1e-6)
        let nowhere = try PhotoMetadata.read(Data(contentsOf: fixture("nowhere.jpg")))
        XCTAssertNil(nowhere.latitude)
        XCTAssertEqual(nowhere.taken, "1999:12:31 23:59:59")
        XCTAssertNil(try PhotoMetadata.read(Data(contentsOf: fixture("zero.jpg"))).latitude,
                     "0° 0° is what a camera without a fix writes")
        XCTAssertThrowsError(try PhotoMetadata.read(Data(contentsOf: fixture("text.jpg"))))
        XCTAssertThrowsError(try PhotoMetadata.read(Data()))
    }

    func testPhotosJoinThePinWithin100MetresOrEachOtherOnANewPin() async throws {
        let tower = try store.addPin(latitude: 48.8583, longitude: 2.2944)
        let reading = try await read(["eiffel.jpg", "eiffel-near.jpg", "champ.jpg", "nowhere.jpg", "rio.png",
                                      "sugarloaf.webp"])
        XCTAssertEqual(reading.refused, [])
        let (addition, plan) = try await list.addYourPhotos(reading.photos)
        XCTAssertEqual(plan.unplaced.map(\.originalName), ["nowhere.jpg"])
        XCTAssertEqual(plan.groups.map(\.pinId), [tower.id, nil, nil, nil])
        XCTAssertEqual(plan.groups.map { $0.photos.map(\.originalName) },
                       [["eiffel.jpg", "eiffel-near.jpg"], ["champ.jpg"], ["rio.png"], ["sugarloaf.webp"]])
        XCTAssertEqual(addition?.added.newPinIds.count, 3)
        XCTAssertEqual(try store.pinCount(), 4)
        let album = try store.photos(pinId: tower.id!)
        XCTAssertEqual(album.map(\.title), ["eiffel.jpg", "eiffel-near.jpg"])
        XCTAssertTrue(album.allSatisfy { $0.isYours && $0.state == .downloaded })
        XCTAssertEqual(album.first?.taken, TakenDate(year: 2019, month: 7, day: 14))
        XCTAssertEqual(album.first?.coordinate?.latitude ?? 0, 48.8584, accuracy: 1e-6)
        XCTAssertNil(try store.pin(id: tower.id!)?.albumPage, "the others' photos still fill in when it opens")
    }

    func testTheCopyHasTheBytesAsTheyWereAndIsTheAlbumsFirstThroughNewCollection() async throws {
        let pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 3, photos: remotePhotos(3))
        let reading = try await read(["eiffel.jpg"])
        _ = try await list.addYourPhotos(reading.photos)
        var album = try store.photos(pinId: pin.id!)
        XCTAssertEqual(album.map(\.position), [0, 1, 2, 3])
        XCTAssertTrue(album[0].isYours)
        XCTAssertEqual(try Data(contentsOf: XCTUnwrap(store.fileURL(for: album[0]))),
                       try Data(contentsOf: fixture("eiffel.jpg")), "its metadata is kept as it was")
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 2, pages: 3,
                                   photos: remotePhotos(2, prefix: "n"))
        album = try store.photos(pinId: pin.id!)
        XCTAssertEqual(album.map(\.isYours), [true, false, false], "New Collection keeps your photo, first")
        XCTAssertEqual(album.map(\.position), [0, 1, 2])
        XCTAssertEqual(try store.repair().removedFiles, 0, "repair keeps a copy an album holds")
    }

    func testUndoTakesThePhotosOutAndTheNewPinsAway() async throws {
        let pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(2))
        let reading = try await read(["eiffel.jpg", "rio.png"])
        let (addition, _) = try await list.addYourPhotos(reading.photos)
        let copies = try store.photos(pinId: pin.id!).filter(\.isYours).compactMap { store.fileURL(for: $0) }
        XCTAssertEqual(copies.count, 1)
        // Rio's new pin has filled its album meanwhile: a downloaded photo of the service's.
        let rio = try XCTUnwrap(addition?.added.newPinIds.first)
        let filled = try store.replaceAlbum(pinId: rio, source: "commons", page: 1, pages: 1, photos: remotePhotos(1, prefix: "rio"))
        let downloaded = try XCTUnwrap(store.saveDownloaded(photoId: filled[0].id!, data: SampleImages.jpeg))
        let serviceFile = try XCTUnwrap(store.fileURL(for: downloaded))
        addition?.undo()
        try await until("the photos are out") { try self.store.photoCount() == 2 && self.store.pinCount() == 1 }
        XCTAssertEqual(try store.photos(pinId: pin.id!).map(\.position), [0, 1])
        // The files go after the rows' commit, off the main thread: wait for that, not for the rows.
        let gone = { (url: URL) in !FileManager.default.fileExists(atPath: url.path) }
        try await until("your photo's copy is deleted") { gone(copies[0]) }
        try await until("the new pin's other photos' files go too") { gone(serviceFile) }
    }

    func testPhotosWithoutAPositionGoWhereTheUserSaysOrAreRemoved() async throws {
        let reading = try await read(["nowhere.jpg", "zero.jpg"])
        let (none, plan) = try await list.addYourPhotos(reading.photos)
        XCTAssertNil(none)
        XCTAssertEqual(plan.unplaced.count, 2)
        let (addition, placed) = try await list.addYourPhotos([plan.unplaced[0]],
                                                              at: Coordinate(latitude: 51.5, longitude: -0.12))
        XCTAssertEqual(placed.groups.first?.coordinate, Coordinate(latitude: 51.5, longitude: -0.12))
        XCTAssertEqual(addition?.added.newPinIds.count, 1)
        let zeroCopy = store.photosDirectory.appendingPathComponent(plan.unplaced[1].fileName)
        XCTAssertTrue(FileManager.default.fileExists(atPath: zeroCopy.path))
        list.abandonYourPhotos([plan.unplaced[1]])
        XCTAssertFalse(FileManager.default.fileExists(atPath: zeroCopy.path))
        XCTAssertEqual(try store.repair().removedFiles, 0)
    }

    func testRefusedPhotosSayWhyAndLeaveNothingBehind() async throws {
        let fifo = directory.appendingPathComponent("pipe.jpg")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let reading = try await list.readYourPhotos(
            ["text.jpg", "giant.jpg", "rio.png"].map(fixture) + [fifo, directory, directory.appendingPathComponent("gone.jpg")],
            canShow: ["image/jpeg"], maxPixels: { ImageCheck.maxPixels(mimeType: $0) })
        XCTAssertEqual(reading.photos, [])
        XCTAssertEqual(reading.refused.count, 6)
        XCTAssertTrue(reading.refused[0].contains("text.jpg"))
        XCTAssertEqual(reading.refused[1], YourPhoto.message(for: .tooManyPixels, fileName: "giant.jpg"))
        XCTAssertEqual(reading.refused[2], YourPhoto.message(for: .cannotShow(mimeType: "image/png"), fileName: "rio.png"))
        let left = (try? FileManager.default.contentsOfDirectory(atPath: store.photosDirectory.path)) ?? []
        XCTAssertEqual(left, [])
    }

    func testRepairRemovesACopyNoAlbumHolds() throws {
        let stray = store.photosDirectory.appendingPathComponent("yours-0123abcd.jpg")
        try FileManager.default.createDirectory(at: store.photosDirectory, withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: stray)
        let foreign = store.photosDirectory.appendingPathComponent("yours-holiday.jpg")
        try Data([1]).write(to: foreign)
        XCTAssertEqual(try store.repair().removedFiles, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: foreign.path), "a name not ours is left alone")
    }
}
