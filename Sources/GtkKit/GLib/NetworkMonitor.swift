internal import CShim

/// GNetworkMonitor: whether the system says a network is available. GIO picks the
/// implementation: NetworkManager's or the kernel's routes on a desktop, the network portal
/// inside Flatpak (or wherever `GIO_USE_PORTALS=1`), `GIO_USE_NETWORK_MONITOR` overrides it.
/// Only `network-available` is read: connectivity below "full" (a captive portal, a limited
/// network) may still reach the services, so it is left to the transfers to find out.
@MainActor
public final class NetworkMonitor: Object {
    /// Called on the main thread when `isAvailable` changes.
    public var onAvailabilityChange: ((Bool) -> Void)?
    private var last: Bool

    /// The process's monitor (GIO creates it on first use; with the portal, its first answer
    /// arrives asynchronously and is reported through `onChange`).
    public init() {
        let monitor = g_network_monitor_get_default()
        last = g_network_monitor_get_network_available(monitor).isTrue
        super.init(monitor)
        // "notify" rather than "network-changed", which also fires for metered and connectivity
        // changes with the same availability; the value is compared anyway, as notify may repeat.
        onChange(of: "network-available") { [weak self] in self?.update() }
    }

    public var isAvailable: Bool {
        g_network_monitor_get_network_available(vt_network_monitor(raw)).isTrue
    }

    private func update() {
        let now = isAvailable
        guard now != last else { return }
        last = now
        onAvailabilityChange?(now)
    }
}
