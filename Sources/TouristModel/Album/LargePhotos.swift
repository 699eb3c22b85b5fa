import Foundation
import ImageSniffing

/// The photo viewer's sharper versions. The album downloads each photo at the size its cells
/// need; the viewer shows that at once and asks here for the photo's `largeURL`, fetched on
/// demand and kept in the cache folder (the XDG cache: it can always be fetched again), the
/// newest `capacity` of them. Offline, or when the fetch fails, the viewer keeps the album's.
@MainActor
public final class LargePhotos {
    /// A sharper photo is a few MB; a panorama may be more.
    public static let rules = TransferRules(maxBytes: 30_000_000, deadline: 120, minimumRate: 2048, rateWindow: 15)

    private let directory: URL
    private let client: HTTPClient
    private let connectivity: Connectivity
    private let capacity: Int
    private var fetching: [String: Task<URL?, Never>] = [:]

    public init(directory: URL, client: HTTPClient, connectivity: Connectivity, capacity: Int = 100) {
        self.directory = directory
        self.client = client
        self.connectivity = connectivity
        self.capacity = max(capacity, 1)
    }

    /// The sharper version's file, fetched unless it is here already; nil when the photo has
    /// none, or it cannot be had now (offline, a failure, not an image). `policy`: the
    /// addresses the photo's source may fetch from.
    public func file(for photo: Photo, policy: AddressPolicy?) async -> URL? {
        guard let text = photo.largeURL, let url = URL(string: text), ["http", "https"].contains(url.scheme) else { return nil }
        let file = directory.appendingPathComponent(Self.fileName(for: text), isDirectory: false)
        if DurableFile.isRegularFile(file) { return file }
        guard connectivity.isOnline else { return nil }
        if let running = fetching[text] { return await running.value }
        let task = Task { await self.fetch(url, into: file, policy: policy) }
        fetching[text] = task
        let result = await task.value
        fetching[text] = nil
        return result
    }

    private func fetch(_ url: URL, into file: URL, policy: AddressPolicy?) async -> URL? {
        var rules = Self.rules
        rules.policy = policy
        guard let data = try? await client.get(url, rules: rules), ImageCheck.problem(with: data) == nil else { return nil }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // A part left by a crash would block the new one (parts are created, never replaced).
            let part = file.appendingPathExtension("part")
            DurableFile.remove(part)
            try DurableFile.replace(file, with: data, via: part, mode: 0o600)
        } catch {
            return nil
        }
        trim()
        return file
    }

    /// Keeps the newest `capacity` files.
    private func trim() {
        let keys: [URLResourceKey] = [.contentModificationDateKey]
        guard let files = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys),
              files.count > capacity else { return }
        let dated = files.map { ($0, (try? $0.resourceValues(forKeys: Set(keys)).contentModificationDate) ?? .distantPast) }
        for (file, _) in dated.sorted(by: { $0.1 > $1.1 }).dropFirst(capacity) { _ = DurableFile.remove(file) }
    }

    /// A name made from the URL alone (FNV-1a, 64 bits), so nothing from the network names a file.
    static func fileName(for url: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(format: "%016llx.image", hash)
    }
}
