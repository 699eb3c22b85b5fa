import Foundation

/// Names pins after their places: every stored pin whose place was never looked up is asked of
/// the geocoder's reverse search, one at a time (the geocoder's pacer keeps Nominatim's one
/// request a second), the newest first, and the name is stored with the pin, so it is there
/// offline and after restarts. The map and the album show it through the store's pin
/// observation. Offline, or when the service fails, the pins wait: for the network to come
/// back, or the next pin dropped, or the next start.
@MainActor
public final class PinNamer {
    private let store: () -> Store?
    private let reverse: (Coordinate) async throws -> String?
    private let connectivity: Connectivity
    private var task: Task<Void, Never>?
    /// Asked again while a run was going: one more run follows it.
    private var again = false
    /// Pins whose lookup failed this session for a reason other than the network: not asked
    /// again until the next start, so one bad answer cannot hold up the others.
    private var failed: Set<Int64> = []
    /// Something failed that the user cannot act on (for the log).
    public var onError: ((String) -> Void)?

    /// `reverse`: the geocoder's reverse search (`Geocoder.reverse`).
    public init(store: @escaping () -> Store?, connectivity: Connectivity,
                reverse: @escaping (Coordinate) async throws -> String?) {
        self.store = store
        self.reverse = reverse
        self.connectivity = connectivity
        connectivity.observe(by: self) { [weak self] online in
            if online { self?.nameUnnamedPins() }
        }
    }

    /// Whether lookups are going on (for tests).
    public var isNaming: Bool { task != nil }

    /// Looks up every pin without a place name, unless a run is going (which then runs again).
    public func nameUnnamedPins() {
        guard task == nil else {
            again = true
            return
        }
        task = Task { [weak self] in
            await self?.run()
            self?.finished()
        }
    }

    public func stop() {
        task?.cancel()
    }

    private func finished() {
        task = nil
        if again, connectivity.isOnline {
            again = false
            nameUnnamedPins()
        }
    }

    private func run() async {
        while !Task.isCancelled, connectivity.isOnline, let store = store() {
            let pins: [Pin]
            do {
                pins = try store.unnamedPins(excluding: failed)
            } catch {
                onError?("Could not read the pins to name: \(error.localizedDescription)")
                return
            }
            guard !pins.isEmpty else { return }
            for pin in pins {
                guard let id = pin.id, !Task.isCancelled else { return }
                do {
                    let name = try await reverse(pin.coordinate)
                    try await store.setPlaceName(name ?? "", pinId: id)
                } catch let error as GeocoderError {
                    switch error {
                    // The network is gone: the connectivity observer starts again when it is back.
                    case .offline, .network: return
                    // The service is busy or down: asking again now would only add to it.
                    case .rateLimited, .unavailable, .timedOut: return
                    case .malformed:
                        failed.insert(id)
                        onError?("Could not name pin \(id): \(error.localizedDescription)")
                    }
                } catch is CancellationError {
                    return
                } catch {
                    failed.insert(id)
                    onError?("Could not name pin \(id): \(error.localizedDescription)")
                }
            }
        }
    }
}
