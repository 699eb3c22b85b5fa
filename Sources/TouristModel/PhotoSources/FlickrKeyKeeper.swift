import Foundation
import Translation

/// Where the Flickr key is kept outside the settings file: the user's keyring (GtkKit's
/// `Keyring`, through libsecret) in the app, a fake in tests. Failures throw `KeyStoreError`.
@MainActor
public protocol KeyStore: AnyObject {
    /// The stored key, or nil when the keyring holds none.
    func lookup() async throws -> String?
    /// Stores or replaces the key; returns once the keyring has confirmed it.
    func store(_ key: String) async throws
    func remove() async throws
}

/// Why the keyring could not be used, in the keyring service's words (which never hold the key).
public struct KeyStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// The Flickr key and where it lives. The settings file is plain text, so the key goes to the
/// keyring whenever one takes it, and the file keeps it only while none does: a key found in
/// the file is stored in the keyring first and removed from the file only once the keyring has
/// confirmed it, so no failure can lose it. Keyring operations run one at a time, in order.
///
///     settings file ──store ok──▶ keyring (file rewritten without the key, flag set)
///          ▲    └─store failed──▶ stays in the file (`.file`), tried again next start
///          └────── an edit while no keyring takes it
@MainActor
public final class FlickrKeyKeeper {
    public enum Place: Equatable, Sendable {
        /// No key is set.
        case none
        /// Being read from the keyring; photo sources wait for it (`waitForKey`).
        case reading
        /// Being stored in the keyring (the key itself is known).
        case saving
        case keyring
        /// In the settings file, because no keyring took it.
        case file
        /// The keyring holds it but could not be read (locked and not unlocked, or unreachable).
        case unreadable

        /// What the preferences say about it, if anything.
        public var explanation: String? {
            switch self {
            case .none, .reading, .saving: nil
            case .keyring: tr("The key is kept in your keyring.")
            case .file: tr("No keyring is available, so the key is kept in the settings file, where other programs can read it. It moves to your keyring once one is available.")
            case .unreadable: Self.unreadableMessage
            }
        }

        public static var unreadableMessage: String {
            tr("The Flickr key in your keyring could not be read. Unlock your keyring and restart Virtual Tourist, or enter the key again in Preferences.")
        }
    }

    /// The key to use (nil: none, or not read yet).
    public private(set) var key: String?
    public private(set) var place: Place {
        didSet {
            guard place != oldValue else { return }
            if oldValue == .reading { resumeWaiters() }
            changed()
        }
    }
    /// The keyring's last failure, for the log (never the key).
    public private(set) var failure: KeyStoreError?
    /// Called after `place` (or `failure`) changed, each while its owner lives: the app (for
    /// the log) and an open Preferences dialog (for the key's row).
    private var observers: [(owner: Weak, handler: @MainActor () -> Void)] = []

    private struct Weak {
        weak var object: AnyObject?
    }

    /// Calls `handler` after every change of `place` (or `failure`) while `owner` lives.
    public func observe(by owner: AnyObject, _ handler: @escaping @MainActor () -> Void) {
        observers.removeAll { $0.owner.object == nil }
        observers.append((Weak(object: owner), handler))
    }

    private func changed() {
        observers.removeAll { $0.owner.object == nil }
        for observer in observers where observer.owner.object != nil { observer.handler() }
    }

    private let store: any KeyStore
    private let update: (_ change: (inout Settings) -> Void) -> Void
    private var pending: (migrate: String?, read: Bool)
    private var tail: Task<Void, Never>?
    /// Bumped by each edit, so an older edit still queued is skipped.
    private var generation = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// `update` changes and saves the settings file (the app's `update`).
    public init(settings: Settings, store: any KeyStore,
                update: @escaping (_ change: (inout Settings) -> Void) -> Void) {
        self.store = store
        self.update = update
        if let fileKey = Settings.nonEmpty(settings.flickrAPIKey) {
            key = fileKey
            place = .saving
            pending = (fileKey, false)
        } else {
            place = settings.flickrKeyInKeyring ? .reading : .none
            pending = (nil, settings.flickrKeyInKeyring)
        }
    }

    /// Moves a key found in the settings file into the keyring, or reads it from there.
    public func start() {
        if let fileKey = pending.migrate {
            let mine = generation
            enqueue { await self.keep(fileKey, generation: mine) }
        } else if pending.read {
            enqueue { await self.read() }
        }
        pending = (nil, false)
    }

    /// The key from the preferences (nil or blank: no key).
    public func set(_ newKey: String?) {
        let value = Settings.nonEmpty(newKey)
        guard value != key else { return }
        key = value
        generation += 1
        let mine = generation
        if place != .reading { place = value == nil ? .none : .saving }
        if let value {
            enqueue { await self.keep(value, generation: mine) }
        } else {
            enqueue { await self.forget(generation: mine) }
        }
    }

    /// The key once it has been read from the keyring (at once when it needs no reading).
    public func waitForKey() async -> String? {
        while place == .reading {
            await withCheckedContinuation { waiters.append($0) }
        }
        return key
    }

    /// Waits until every queued keyring operation has finished.
    public func settle() async {
        while let current = tail {
            await current.value
            if tail == current { return }
        }
    }

    private func enqueue(_ operation: @escaping @MainActor () async -> Void) {
        let previous = tail
        tail = Task { @MainActor in
            await previous?.value
            await operation()
        }
    }

    private func keep(_ value: String, generation mine: Int) async {
        guard mine == generation else { return }
        do {
            try await store.store(value)
            // Only now that the keyring holds it may the file lose it.
            update {
                $0.flickrAPIKey = nil
                $0.flickrKeyInKeyring = true
            }
            failure = nil
            if mine == generation { place = .keyring }
        } catch {
            failure = Self.keyStoreError(error)
            // A newer edit is queued and writes its own value.
            guard mine == generation else { return }
            update {
                $0.flickrAPIKey = value
                $0.flickrKeyInKeyring = false
            }
            place = .file
        }
    }

    private func forget(generation mine: Int) async {
        guard mine == generation else { return }
        update {
            $0.flickrAPIKey = nil
            $0.flickrKeyInKeyring = false
        }
        do {
            try await store.remove()
        } catch {
            // Not in use any more (the flag is off); only worth a line in the log.
            failure = Self.keyStoreError(error)
            changed()
        }
    }

    private func read() async {
        do {
            let found = Settings.nonEmpty(try await store.lookup())
            // An edit since then decides: its own operation follows this one.
            guard generation == 0 else {
                place = key == nil ? .none : .saving
                return
            }
            key = found
            if found == nil {
                // Removed from the keyring by the user (Passwords and Keys): no key any more.
                update { $0.flickrKeyInKeyring = false }
                place = .none
            } else {
                place = .keyring
            }
        } catch {
            failure = Self.keyStoreError(error)
            place = generation == 0 ? .unreadable : (key == nil ? .none : .saving)
        }
    }

    private func resumeWaiters() {
        let waiting = waiters
        waiters.removeAll()
        for waiter in waiting { waiter.resume() }
    }

    private static func keyStoreError(_ error: any Error) -> KeyStoreError {
        // Only the keyring's own errors carry a reason; anything else is named by its type, so
        // no unknown error's text (which might echo its input) reaches the log.
        error as? KeyStoreError ?? KeyStoreError(reason: String(describing: type(of: error)))
    }
}
