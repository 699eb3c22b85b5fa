import Foundation

/// Names pins after their places when the user looks at them: a pin just dropped or whose album
/// opens, and the unnamed pins a view shows (My Places' rows, the map's pins at rest). Each is
/// asked of the geocoder's reverse search, one at a time (the geocoder's pacer keeps Nominatim's
/// one request a second), and the name is stored with the pin, so it is there offline and after
/// restarts. The map and the album show it through the store's pin observation.
///
/// Not every stored pin in the background: Nominatim's policy does not allow bulk lookups, and
/// with thousands of imported pins each name made every pin observation read them all again,
/// once a second. Offline, or while the service fails, the wanted pins wait: for the network to
/// come back, or the next pin asked for.
@MainActor
public final class PinNamer {
    private let store: () -> Store?
    private let reverse: (Coordinate) async throws -> String?
    private let connectivity: Connectivity
    private var task: Task<Void, Never>?
    /// Pins asked for one by one (dropped, opened), the latest last: it is the one looked at.
    private var asked: [Int64] = []
    /// What each view shows, replaced whenever it shows something else, in its own order; the
    /// view that changed last is asked about first (`viewOrder`'s end).
    private var shown: [String: [Int64]] = [:]
    private var viewOrder: [String] = []
    /// Pins whose lookup failed this session for a reason other than the network: not asked
    /// again until the next start, so one bad answer cannot hold up the others.
    private var failed: Set<Int64> = []
    /// Something failed that the user cannot act on (for the log).
    public var onError: ((String) -> Void)?

    /// At most this many pins of one view, and this many asked one by one, are kept: a minute's
    /// worth of lookups; a view shows more only when it is scrolled on, and then it says so.
    public static let limit = 64

    /// `reverse`: the geocoder's reverse search (`Geocoder.reverse`).
    public init(store: @escaping () -> Store?, connectivity: Connectivity,
                reverse: @escaping (Coordinate) async throws -> String?) {
        self.store = store
        self.reverse = reverse
        self.connectivity = connectivity
        connectivity.observe(by: self) { [weak self] online in
            if online { self?.start() }
        }
    }

    /// Whether lookups are going on (for tests).
    public var isNaming: Bool { task != nil }

    /// Names this pin before any other (a pin just dropped, an album opened). A pin named already
    /// is not asked about.
    public func name(_ pin: Pin) {
        guard let id = pin.id, pin.placeName == nil, !failed.contains(id) else { return }
        asked.removeAll { $0 == id }
        asked.append(id)
        if asked.count > Self.limit { asked.removeFirst(asked.count - Self.limit) }
        start()
    }

    /// The unnamed pins `view` shows now, in its order (the first is named first); they replace
    /// what it showed before, and an empty list says it shows none (it closed).
    public func nameShown(_ pins: [Int64], in view: String) {
        viewOrder.removeAll { $0 == view }
        let wanted = Array(pins.lazy.filter { !self.failed.contains($0) }.prefix(Self.limit))
        if wanted.isEmpty {
            shown[view] = nil
            return
        }
        shown[view] = wanted
        viewOrder.append(view)
        start()
    }

    public func stop() {
        task?.cancel()
    }

    private func start() {
        guard task == nil, connectivity.isOnline else { return }
        task = Task { [weak self] in
            await self?.run()
            self?.task = nil
        }
    }

    /// The next pin to look up, taken off its list.
    private func next() -> Int64? {
        if let id = asked.popLast() { return id }
        while let view = viewOrder.last {
            if var pins = shown[view], !pins.isEmpty {
                let id = pins.removeFirst()
                shown[view] = pins
                return id
            }
            shown[view] = nil
            viewOrder.removeLast()
        }
        return nil
    }

    /// Puts a pin back at the front, for when the network or the service is back.
    private func keep(_ id: Int64) {
        asked.append(id)
    }

    private func run() async {
        while !Task.isCancelled, connectivity.isOnline, let store = store(), let id = next() {
            let pin: Pin?
            do {
                pin = try store.pin(id: id)
            } catch {
                onError?("Could not read pin \(id) to name it: \(error.localizedDescription)")
                continue
            }
            // Deleted, or named meanwhile (the same pin shown by two views).
            guard let pin, pin.placeName == nil, !failed.contains(id) else { continue }
            do {
                let name = try await reverse(pin.coordinate)
                try await store.setPlaceName(name ?? "", pinId: id)
            } catch let error as GeocoderError {
                switch error {
                // The network is gone: the connectivity observer starts again when it is back.
                case .offline, .network:
                    return keep(id)
                // The service is busy or down: asking again now would only add to it. The next
                // pin asked for, or the network coming back, tries again.
                case .rateLimited, .unavailable, .timedOut:
                    return keep(id)
                case .malformed:
                    failed.insert(id)
                    onError?("Could not name pin \(id): \(error.localizedDescription)")
                }
            } catch is CancellationError {
                return keep(id)
            } catch {
                failed.insert(id)
                onError?("Could not name pin \(id): \(error.localizedDescription)")
            }
        }
    }
}
