import Foundation
import ImageSniffing

/// The photo viewer's large versions. The album downloads each photo at the size its cells
/// need; the viewer shows that at once and asks here for the photo's `largeURL`, fetched on
/// demand and kept in the cache folder (the XDG cache: it can always be fetched again), the
/// newest `capacity` of them. Offline, while the host asks the app to slow down (`HostPauses`),
/// or when the fetch fails, the viewer keeps the album's.
@MainActor
public final class LargePhotos {
    /// A large version is a few MB; a panorama may be more.
    public static let rules = TransferRules(maxBytes: 30_000_000, deadline: 120, minimumRate: 2048, rateWindow: 15)

    private let directory: URL
    private let client: HTTPClient
    private let connectivity: Connectivity
    private let capacity: Int
    private let pauses: HostPauses?

    public init(directory: URL, client: HTTPClient, connectivity: Connectivity, pauses: HostPauses? = nil,
                capacity: Int = 100) {
        self.directory = directory
        self.client = client
        self.connectivity = connectivity
        self.pauses = pauses
        self.capacity = max(capacity, 1)
    }

    /// The large version's file when it was fetched before (nothing is fetched).
    public func cachedFile(for photo: Photo) -> URL? {
        guard let text = photo.largeURL else { return nil }
        let file = directory.appendingPathComponent(Self.fileName(for: text), isDirectory: false)
        return DurableFile.isRegularFile(file) ? file : nil
    }

    /// The large version's file, fetched unless it is here already; nil when the photo has
    /// none, or it cannot be had now (offline, a failure, not an image, cancelled: the viewer
    /// moved on). `policy`: the addresses the photo's source may fetch from.
    public func file(for photo: Photo, policy: AddressPolicy?) async -> URL? {
        guard let fetched = await fetch(for: photo, policy: policy) else { return nil }
        if let written = fetched.written, await !written.value { return nil }
        return fetched.file
    }

    /// A large version as soon as it can be shown: from the cache folder, or just fetched.
    public struct Fetched: Sendable {
        public let file: URL
        /// The bytes just fetched (nil: the file was here already): shown at once, while
        /// `written` puts them in `file`.
        public let data: Data?
        /// Whether the file could be written.
        public let written: Task<Bool, Never>?
    }

    /// As `file(for:policy:)`, but a fetched version comes back before its file is written.
    public func fetch(for photo: Photo, policy: AddressPolicy?) async -> Fetched? {
        guard let text = photo.largeURL, let url = URL(string: text), ["http", "https"].contains(url.scheme) else { return nil }
        let file = directory.appendingPathComponent(Self.fileName(for: text), isDirectory: false)
        if DurableFile.isRegularFile(file) { return Fetched(file: file, data: nil, written: nil) }
        let host = url.host?.lowercased() ?? ""
        guard connectivity.isOnline, pauses?.pause(for: host) == nil else { return nil }
        var rules = Self.rules
        rules.policy = policy
        let data: Data
        do {
            // The transfer is the caller's task's: cancelling it (the next photo) cancels this.
            data = try await client.get(url, rules: rules)
        } catch {
            if let asked = AlbumLoader.slowDown(error) {
                let service = PhotoSourceID(rawValue: photo.source)?.organisation ?? host
                pauses?.slowDown(host: host, service: service, retryAfter: asked.retryAfter, reason: asked.reason)
            }
            return nil
        }
        pauses?.succeeded(host: host)
        guard !Task.isCancelled, ImageCheck.problem(with: data) == nil else { return nil }
        // Written and synced off the main thread, as the album's downloads are.
        let directory = directory, capacity = capacity
        let written = Task.detached(priority: .utility) { () -> Bool in
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                // A part left by a crash would block the new one (parts are created, never replaced).
                let part = file.appendingPathExtension("part")
                DurableFile.remove(part)
                try DurableFile.replace(file, with: data, via: part, mode: 0o600)
            } catch {
                return false
            }
            Self.trim(directory, keeping: capacity)
            return true
        }
        return Fetched(file: file, data: data, written: written)
    }

    /// Keeps the newest `capacity` files.
    nonisolated private static func trim(_ directory: URL, keeping capacity: Int) {
        let keys: [URLResourceKey] = [.contentModificationDateKey]
        guard let files = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys),
              files.count > capacity else { return }
        let dated = files.map { ($0, (try? $0.resourceValues(forKeys: Set(keys)).contentModificationDate) ?? .distantPast) }
        for (file, _) in dated.sorted(by: { $0.1 > $1.1 }).dropFirst(capacity) { DurableFile.remove(file) }
    }

    /// A name made from the URL alone (FNV-1a, 64 bits), so nothing from the network names a file.
    nonisolated static func fileName(for url: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(format: "%016llx.image", hash)
    }
}
