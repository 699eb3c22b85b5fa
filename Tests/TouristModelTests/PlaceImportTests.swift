import Foundation
import PlaceFiles
import XCTest
@testable import TouristModel

/// Importing places into a real store: the preview leaves out what is already a pin, the import
/// is one transaction with the file's names, Undo takes it back, and an export read back into an
/// emptied store gives the same places.
@MainActor
final class PlaceImportTests: XCTestCase {
    private var directory: URL!
    private var store: Store!
    private var list: PinList!

    override func setUp() async throws {
        directory = try makeTemporaryDirectory(self)
        store = try makeStore(self, in: directory)
        let store = store
        list = PinList(store: { store })
        list.onError = { XCTFail($0) }
    }

    private func file(_ name: String, _ text: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    func testThePreviewLeavesOutPlacesWithin50MetresOfAPinOrOfEachOther() async throws {
        try store.addPin(latitude: 48.8584, longitude: 2.2945)
        let url = try file("trip.gpx", """
            <gpx><wpt lat="48.8587" lon="2.2945"><name>30 m from the pin</name></wpt>
            <wpt lat="48.8590" lon="2.2945"><name>70 m from the pin</name></wpt>
            <wpt lat="48.8592" lon="2.2946"><name>25 m from the one before</name></wpt>
            <wpt lat="-95" lon="0"/></gpx>
            """)
        let preview = try await list.previewImport(of: url)
        XCTAssertEqual(preview.fileName, "trip.gpx")
        XCTAssertEqual(preview.new.map(\.name), ["70 m from the pin"])
        XCTAssertEqual(preview.existing, 2)
        XCTAssertEqual(preview.skipped, 1)
        XCTAssertEqual(try store.pinCount(), 1, "a preview stores nothing")
    }

    func testImportIsOneTransactionWithTheFilesNamesAndUndoRemovesIt() async throws {
        let kept = try store.addPin(latitude: 10, longitude: 10)
        let url = try file("places.geojson", """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"name": "  Rome\\n centre "}, "geometry": {"type": "Point", "coordinates": [12.49, 41.89]}},
              {"type": "Feature", "properties": {"dropped": "2020-02-02T02:02:02Z"}, "geometry": {"type": "Point", "coordinates": [-180, 0]}}
            ]}
            """)
        let addition = try await list.importPlaces(try await list.previewImport(of: url))
        XCTAssertEqual(addition.count, 2)
        let pins = try store.pins()
        XCTAssertEqual(pins.map(\.customName), [nil, "Rome centre", nil])
        XCTAssertEqual(pins.last?.created, ISO8601DateFormatter().date(from: "2020-02-02T02:02:02Z"))
        addition.undo()
        try await until("the imported pins are deleted") { try self.store.pins().map(\.id) == [kept.id] }
    }

    func testAFailedTransactionStoresNone() throws {
        let places = [PlaceFile.Place(latitude: 1, longitude: 1), PlaceFile.Place(latitude: .nan, longitude: 1)]
        XCTAssertThrowsError(try store.addPins(places))
        XCTAssertEqual(try store.pinCount(), 0)
    }

    func testExportWipeAndImportGiveBackTheSamePlaces() async throws {
        try store.addPin(latitude: 48.8584, longitude: 2.2945)
        let second = try store.addPin(latitude: -33.8568, longitude: 151.2153)
        try store.renamePin(id: second.id!, to: "Opera <House> & \"Harbour\"")
        try await store.setPlaceName("Champ de Mars, Paris", pinId: 1)
        let before = try store.pins()
        for format in [PlaceFile.Format.gpx, .geoJSON] {
            let url = directory.appendingPathComponent("My Places.\(format.fileExtension)")
            let written = try await list.exportPlaces(to: url)
            XCTAssertEqual(written, 2)
            // Wiped: a new, empty store.
            let empty = try makeStore(self, in: directory.appendingPathComponent(format.rawValue))
            let fresh = PinList(store: { empty })
            _ = try await fresh.importPlaces(try await fresh.previewImport(of: url))
            let after = try empty.pins()
            XCTAssertEqual(after.map(\.name), before.map(\.name), "\(format)")
            XCTAssertEqual(after.map(\.created.timeIntervalSince1970).map { $0.rounded(.down) },
                           before.map(\.created.timeIntervalSince1970).map { $0.rounded(.down) })
            for (read, original) in zip(after, before) {
                XCTAssertEqual(read.latitude, original.latitude, accuracy: 1e-9)
                XCTAssertEqual(read.longitude, original.longitude, accuracy: 1e-9)
            }
        }
    }

    func testAFileOver100MBIsRefusedBeforeItIsRead() async throws {
        let url = directory.appendingPathComponent("huge.gpx")
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(PlaceFile.maxBytes) + 1)  // sparse: nothing is written
        try handle.close()
        do {
            _ = try await list.previewImport(of: url)
            XCTFail("read")
        } catch {
            XCTAssertEqual(error as? PlaceFile.Failure, .tooLarge)
            XCTAssertEqual(PlaceImport.message(for: error, fileName: "huge.gpx"), "“huge.gpx” is larger than 100 MB")
        }
    }

    func testAFIFOOrAFolderIsRefusedWithoutHanging() async throws {
        let fifo = directory.appendingPathComponent("places.gpx")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        for url in [fifo, directory!, directory.appendingPathComponent("gone.kml")] {
            do {
                _ = try await list.previewImport(of: url)
                XCTFail("\(url.lastPathComponent) was read")
            } catch {
                XCTAssertTrue(error is PlaceImport.ReadFailure, "\(error)")
                XCTAssertTrue(PlaceImport.message(for: error, fileName: url.lastPathComponent)
                    .hasPrefix("“\(url.lastPathComponent)” could not be read: "))
            }
        }
    }
}
