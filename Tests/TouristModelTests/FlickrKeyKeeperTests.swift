import Foundation
import XCTest
@testable import TouristModel

/// A keyring in memory whose answers the test can hold back and let go of, or make fail.
@MainActor
private final class FakeKeyStore: KeyStore {
    var stored: String?
    var failure: KeyStoreError?
    /// While true, each call waits until `release()`.
    var holding = false
    private(set) var calls: [String] = []
    private var held: [CheckedContinuation<Void, Never>] = []

    var heldCount: Int { held.count }

    func lookup() async throws -> String? {
        try await answer("lookup")
        return stored
    }

    func store(_ key: String) async throws {
        try await answer("store \(key)")
        stored = key
    }

    func remove() async throws {
        try await answer("remove")
        stored = nil
    }

    func release() {
        let waiting = held
        held.removeAll()
        for continuation in waiting { continuation.resume() }
    }

    private func answer(_ call: String) async throws {
        calls.append(call)
        if holding { await withCheckedContinuation { held.append($0) } }
        if let failure { throw failure }
    }
}

/// The settings file as the app keeps it: every change saved at once.
@MainActor
private final class SavedSettings {
    let file: SettingsFile
    var settings: Settings

    init(file: SettingsFile) {
        self.file = file
        settings = file.load()
    }

    func update(_ change: (inout Settings) -> Void) {
        change(&settings)
        try? file.save(settings)
    }

    /// The file's text: what any program that can read the user's files sees.
    var text: String { (try? String(contentsOf: file.url, encoding: .utf8)) ?? "" }
}

@MainActor
final class FlickrKeyKeeperTests: XCTestCase {
    private var file: SettingsFile!
    private let fake = FakeKeyStore()
    private let unavailable = KeyStoreError(reason: "The name org.freedesktop.secrets was not provided by any .service files")

    override func setUp() async throws {
        let directory = try makeTemporaryDirectory(self)
        file = SettingsFile(url: directory.appendingPathComponent("settings.json"))
    }

    private func write(_ json: String) throws {
        try Data(json.utf8).write(to: file.url)
    }

    private func keeper(for saved: SavedSettings) -> FlickrKeyKeeper {
        FlickrKeyKeeper(settings: saved.settings, store: fake) { saved.update($0) }
    }

    private func wait(for condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }

    func testAKeyInTheFileMovesToTheKeyringAndLeavesTheFileOnlyOnceStored() async throws {
        try write(#"{"source": "flickr", "flickrAPIKey": "file-key-123", "photosPerAlbum": 30}"#)
        let saved = SavedSettings(file: file)
        let keeper = keeper(for: saved)
        fake.holding = true
        keeper.start()
        XCTAssertEqual(keeper.key, "file-key-123", "the key is usable while it moves")
        await wait { fake.heldCount == 1 }
        XCTAssertEqual(fake.calls, ["store file-key-123"])
        XCTAssertTrue(saved.text.contains("file-key-123"), "the file keeps the key until the keyring has it")

        fake.release()
        await keeper.settle()
        XCTAssertEqual(fake.stored, "file-key-123")
        XCTAssertFalse(saved.text.contains("file-key-123"), "the file no longer holds the key: \(saved.text)")
        let reloaded = file.load()
        XCTAssertNil(reloaded.flickrAPIKey)
        XCTAssertTrue(reloaded.flickrKeyInKeyring)
        XCTAssertEqual(reloaded.photosPerAlbum, 30, "the rest of the settings stay")
        XCTAssertEqual(keeper.place, .keyring)
        XCTAssertEqual(keeper.place.explanation, "The key is kept in your keyring.")
    }

    func testWithoutAKeyringTheKeyStaysInTheFileAndThePreferencesSaySo() async throws {
        try write(#"{"flickrAPIKey": "file-key-123"}"#)
        let saved = SavedSettings(file: file)
        fake.failure = unavailable
        let keeper = keeper(for: saved)
        keeper.start()
        await keeper.settle()
        XCTAssertTrue(saved.text.contains("file-key-123"), "never lose the key")
        XCTAssertEqual(file.load().flickrAPIKey, "file-key-123")
        XCTAssertFalse(file.load().flickrKeyInKeyring)
        XCTAssertEqual(keeper.key, "file-key-123", "Flickr still works")
        XCTAssertEqual(keeper.place, .file)
        XCTAssertEqual(keeper.failure, unavailable)
        let explanation = try XCTUnwrap(keeper.place.explanation)
        XCTAssertTrue(explanation.hasPrefix("No keyring is available"), explanation)
        XCTAssertFalse(explanation.contains("file-key-123"))

        // Next start, with a keyring: it moves then.
        fake.failure = nil
        let next = SavedSettings(file: file)
        let again = self.keeper(for: next)
        again.start()
        await again.settle()
        XCTAssertEqual(fake.stored, "file-key-123")
        XCTAssertNil(file.load().flickrAPIKey)
        XCTAssertEqual(again.place, .keyring)
    }

    func testAKeyInTheKeyringIsReadAndSourcesWaitForIt() async throws {
        try write(#"{"source": "flickr", "flickrKeyInKeyring": true}"#)
        fake.stored = "ring-key"
        fake.holding = true
        let keeper = keeper(for: SavedSettings(file: file))
        XCTAssertEqual(keeper.place, .reading)
        keeper.start()
        var answer: String?? = .none
        Task { answer = .some(await keeper.waitForKey()) }
        await wait { fake.heldCount == 1 }
        for _ in 0..<20 { await Task.yield() }
        XCTAssertTrue(answer == nil, "a source must not go on without the key it is waiting for")
        fake.release()
        await wait { answer != nil }
        XCTAssertEqual(answer, .some("ring-key"))
        XCTAssertEqual(keeper.place, .keyring)
        XCTAssertEqual(fake.calls, ["lookup"])
    }

    func testNoKeyringIsAskedWhenNoKeyWasEverSet() async throws {
        try write(#"{"source": "automatic"}"#)
        let keeper = keeper(for: SavedSettings(file: file))
        keeper.start()
        await keeper.settle()
        let key = await keeper.waitForKey()
        XCTAssertNil(key)
        XCTAssertEqual(keeper.place, .none)
        XCTAssertEqual(fake.calls, [], "a user without a key is never asked to unlock a keyring")
    }

    func testAKeyringThatCannotBeReadIsReportedAndSourcesGoOnWithoutTheKey() async throws {
        try write(#"{"flickrKeyInKeyring": true}"#)
        fake.failure = KeyStoreError(reason: "Cannot unlock: the prompt was dismissed")
        let keeper = keeper(for: SavedSettings(file: file))
        keeper.start()
        let key = await keeper.waitForKey()
        XCTAssertNil(key)
        XCTAssertEqual(keeper.place, .unreadable)
        XCTAssertTrue(file.load().flickrKeyInKeyring, "the key is still there for the next start")
        XCTAssertNotNil(keeper.place.explanation)
    }

    func testAKeyRemovedFromTheKeyringMeansNoKey() async throws {
        try write(#"{"flickrKeyInKeyring": true}"#)
        let keeper = keeper(for: SavedSettings(file: file))
        keeper.start()
        await keeper.settle()
        XCTAssertEqual(keeper.place, .none)
        XCTAssertFalse(file.load().flickrKeyInKeyring)
    }

    func testEditsReachTheKeyringInOrderAndTheLastOneWins() async throws {
        let saved = SavedSettings(file: file)
        let keeper = keeper(for: saved)
        keeper.start()
        fake.holding = true
        keeper.set("a")
        await wait { fake.heldCount == 1 }
        keeper.set("ab")
        keeper.set("abc")
        XCTAssertEqual(keeper.key, "abc")
        fake.holding = false
        fake.release()
        await keeper.settle()
        XCTAssertEqual(fake.calls, ["store a", "store abc"], "a superseded edit is skipped")
        XCTAssertEqual(fake.stored, "abc")
        XCTAssertFalse(saved.text.contains("abc"))
        XCTAssertTrue(file.load().flickrKeyInKeyring)

        keeper.set("  ")
        await keeper.settle()
        XCTAssertNil(keeper.key)
        XCTAssertNil(fake.stored)
        XCTAssertEqual(keeper.place, .none)
        XCTAssertFalse(file.load().flickrKeyInKeyring)
    }

    func testAnEditWithoutAKeyringGoesToTheFile() async throws {
        let saved = SavedSettings(file: file)
        let keeper = keeper(for: saved)
        fake.failure = unavailable
        keeper.set("typed-key")
        await keeper.settle()
        XCTAssertEqual(file.load().flickrAPIKey, "typed-key")
        XCTAssertEqual(keeper.place, .file)
    }

    func testAnUnknownErrorNeverReachesTheLogAsText() async throws {
        struct Echo: Error, CustomStringConvertible { var description: String { "echo secret-key" } }
        @MainActor final class Failing: KeyStore {
            func lookup() async throws -> String? { nil }
            func store(_ key: String) async throws { throw Echo() }
            func remove() async throws {}
        }
        let saved = SavedSettings(file: file)
        let keeper = FlickrKeyKeeper(settings: saved.settings, store: Failing()) { saved.update($0) }
        keeper.set("secret-key")
        await keeper.settle()
        XCTAssertFalse(String(describing: keeper.failure).contains("secret-key"))
        XCTAssertFalse(saved.settings.description.contains("secret-key"))
    }
}
