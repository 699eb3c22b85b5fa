import Foundation
import ImageSniffing

/// Fetches a pin's Wikipedia articles when they need it (never, a week ago, or in another
/// language: `Store.StoredArticles.needFetching`) and stores them; the album shows what the store
/// holds (`Store.observeArticles`), so they are there offline and after a restart. Requests go
/// one at a time per host (`RequestPacer`), wait out a host's pause after a 429 (`HostPauses`),
/// and are not sent offline. Nothing here touches GTK.
@MainActor
public final class PlaceArticles {
    /// One answer: up to 20 introductions of a few KB each.
    static let maxResponseBytes = 2 * 1024 * 1024
    public static let serviceName = "Wikipedia"

    private let store: () -> Store?
    private let client: HTTPClient
    private let language: String
    private let endpointOverride: URL?
    private let connectivity: Connectivity
    private let pauses: HostPauses
    private let fixedPacer: RequestPacer?
    private let now: () -> Date
    /// Where lead images are kept, by their address.
    private let imageDirectory: URL
    /// The pins being fetched: a second ask waits for nothing and sends nothing.
    private var running: Set<Int64> = []
    /// Something failed that the user cannot act on (for the log).
    public var onError: ((String) -> Void)?

    /// `languages`: the user's, best first (`Localization.acceptLanguages`); the first a
    /// Wikipedia can be named after is asked. `endpointOverride`: another MediaWiki API (tests).
    public init(store: @escaping () -> Store?, client: HTTPClient, languages: [String], endpointOverride: URL? = nil,
                connectivity: Connectivity, pauses: HostPauses, imageDirectory: URL, pacer: RequestPacer? = nil,
                now: @escaping () -> Date = Date.init) {
        self.store = store
        self.imageDirectory = imageDirectory
        self.client = client
        language = NearbyArticles.language(for: languages)
        self.endpointOverride = endpointOverride
        self.connectivity = connectivity
        self.pauses = pauses
        fixedPacer = pacer
        self.now = now
    }

    private var endpoint: URL { NearbyArticles.endpoint(language: language, override: endpointOverride) }

    /// Fetches `pin`'s articles if they need it (`radiusMeters` around it, thumbnails for
    /// `thumbnailPixels`); returns whether an answer was stored. Offline, paused, or already
    /// fresh, it sends nothing.
    @discardableResult
    public func refresh(_ pin: Pin, radiusMeters: Int = 1_000, thumbnailPixels: Int = 120) async -> Bool {
        guard let id = pin.id, !running.contains(id), connectivity.isOnline, let store = store() else { return false }
        let host = endpoint.host ?? ""
        guard pauses.pause(for: host) == nil else { return false }
        running.insert(id)
        defer { running.remove(id) }
        // The store's read and write, and the answer's parsing, off the main thread (it is
        // drawing the album's page meanwhile).
        let (language, asked) = (self.language, now())
        let stored = await Task.detached(priority: .utility) { try? store.articles(pinId: id) }.value
        guard let stored, stored.needFetching(language: language, now: asked) else { return false }
        let url = NearbyArticles.searchURL(endpoint: endpoint, near: pin.coordinate, radiusMeters: radiusMeters,
                                           thumbnailPixels: thumbnailPixels)
        do {
            let pacer = fixedPacer ?? .shared(for: endpoint)
            let data = try await pacer.run { [client] sent in
                try await client.get(url, rules: TransferRules(maxBytes: Self.maxResponseBytes, deadline: 30), sent: sent)
            }
            pauses.succeeded(host: host)
            let (coordinate, fetched) = (pin.coordinate, now())
            try await Task.detached(priority: .utility) {
                let articles = try NearbyArticles.decode(data, language: language, near: coordinate)
                try store.replaceArticles(pinId: id, language: language, articles: articles, fetched: fetched)
            }.value
            return true
        } catch HTTPError.rateLimited(let retryAfter) {
            pauses.slowDown(host: host, service: Self.serviceName, retryAfter: retryAfter)
        } catch PhotoSourceError.rateLimited {
            pauses.slowDown(host: host, service: Self.serviceName, retryAfter: nil)
        } catch {
            onError?("Wikipedia's articles near pin \(id) could not be fetched: \(error.localizedDescription)")
        }
        return false
    }

    /// The pin's stored articles now and after every change; nil when there is no store.
    public func observe(pinID: Int64, onChange: @escaping @MainActor (Store.StoredArticles) -> Void) -> StoreObservation? {
        store()?.observeArticles(pinId: pinID, onError: { [weak self] error in
            self?.onError?("Could not read the articles of pin \(pinID): \(error.localizedDescription)")
        }, onChange: onChange)
    }

    /// The article's lead image as a file, fetched the first time (from the wiki's image host,
    /// or the configured endpoint's origin in tests); nil without one, offline, or when what
    /// came is no image.
    public func imageFile(for article: NearbyArticle) async -> URL? {
        guard let url = article.thumbnail else { return nil }
        let (directory, file) = (imageDirectory,
                                 imageDirectory.appendingPathComponent(LargePhotos.fileName(for: url.absoluteString),
                                                                       isDirectory: false))
        // The disk's work off the main thread, which is drawing the articles' page.
        if await Task.detached(priority: .utility, operation: { FileManager.default.fileExists(atPath: file.path) }).value {
            return file
        }
        guard connectivity.isOnline else { return nil }
        let policy = AddressPolicy(trustedEndpoints: endpointOverride.map { [$0] } ?? [])
        guard policy.allows(url),
              let data = try? await client.get(url, rules: TransferRules(maxBytes: Self.maxImageBytes, deadline: 60,
                                                                         policy: policy)) else { return nil }
        return await Task.detached(priority: .utility) { () -> URL? in
            guard ImageCheck.looksLikeImage(data) else { return nil }
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return (try? data.write(to: file, options: .atomic)) != nil ? file : nil
        }.value
    }

    /// A lead image at a thumbnail step is some tens of KB.
    static let maxImageBytes = 4 * 1024 * 1024
}
