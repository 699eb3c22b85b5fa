internal import CShim

/// GNetworkMonitor: whether the system says a network is available. GIO picks the
/// implementation: NetworkManager's or the kernel's routes on a desktop, the network portal
/// inside Flatpak (or wherever `GIO_USE_PORTALS=1`), `GIO_USE_NETWORK_MONITOR` overrides it.
/// Only `network-available` is read: connectivity below "full" (a captive portal, a limited
/// network) may still reach the services, so it is left to the transfers to find out.
@MainActor
public final class NetworkMonitor: Object {
    /// Called on the main thread when `isAvailable` changes, and on the portal's first answer.
    public var onAvailabilityChange: ((Bool) -> Void)?
    /// Whether `isAvailable` is the system's answer yet. GIO's portal monitor (Flatpak) says
    /// "unavailable" until the portal has answered its first asynchronous call; that answer
    /// arrives as "network-changed" even when it is "unavailable" again, and is reported through
    /// `onAvailabilityChange` whatever it says.
    public private(set) var hasAnswered: Bool
    private var last: Bool

    /// The process's monitor (GIO creates it on first use).
    public init() {
        let monitor = g_network_monitor_get_default()
        last = g_network_monitor_get_network_available(monitor).isTrue
        let typeName = UnsafeMutablePointer<GTypeInstance>(monitor).flatMap { g_type_name_from_instance($0) }
        hasAnswered = typeName.map { String(cString: $0) } != "GNetworkMonitorPortal"
        super.init(monitor)
        // "notify" for a change of availability alone ("network-changed" also fires for metered
        // and connectivity changes with the same availability); the value is compared anyway.
        onChange(of: "network-available") { [weak self] in self?.update() }
        // The portal's first answer, and any change (the gboolean argument is read again below).
        Signal.connect(raw, "network-changed", uint: { [weak self] _ in self?.update() })
        // A portal that never answers must not leave the app "online" for good: after a few
        // seconds what the monitor says counts as its answer.
        if !hasAnswered {
            MainLoop.timeout(milliseconds: Self.answerWait) { [weak self] in
                if self?.hasAnswered == false { self?.update() }
                return false
            }
        }
    }

    static let answerWait: UInt32 = 3000

    public var isAvailable: Bool {
        g_network_monitor_get_network_available(vt_network_monitor(raw)).isTrue
    }

    private func update() {
        let now = isAvailable
        let first = !hasAnswered
        hasAnswered = true
        guard now != last || first else { return }
        last = now
        onAvailabilityChange?(now)
    }
}
