import Foundation
import Translation

/// The Nominatim server the user chose in Preferences instead of OpenStreetMap's: Nominatim's
/// usage policy asks that an app can switch servers without a new version. The user gives the
/// server's address ("https://nominatim.example.org"); searches go to its `/search` and names to
/// its `/reverse`, as on OpenStreetMap's.
public enum PlaceNamesServer {
    public enum Problem: Error, Equatable, Sendable, LocalizedError {
        /// Not a web address of a server (no host, a user name, a query, another scheme…).
        case notAnAddress
        /// http:// to another computer: searches would travel unencrypted.
        case notSecure

        public var errorDescription: String? {
            switch self {
            case .notAnAddress:
                return tr("Enter the server’s web address, such as https://nominatim.example.org")
            case .notSecure:
                return tr("The address must start with https:// (http:// only for a server on this computer)")
            }
        }
    }

    /// The server's address as it is kept (no trailing slash), from what the user typed: nil for
    /// an empty field (OpenStreetMap's server). "nominatim.example.org" means https; an address
    /// ending in "/search" (copied from a search) is the server it belongs to.
    public static func address(from text: String) throws(Problem) -> String? {
        var typed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !typed.isEmpty else { return nil }
        if !typed.contains("://") { typed = "https://" + typed }
        guard let parts = URLComponents(string: typed), let scheme = parts.scheme?.lowercased(),
              let host = parts.host?.lowercased(), !host.isEmpty,
              parts.user == nil, parts.password == nil, parts.query == nil, parts.fragment == nil,
              typed.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 }) else { throw .notAnAddress }
        switch scheme {
        case "https": break
        case "http": guard isThisComputer(host) else { throw .notSecure }
        default: throw .notAnAddress
        }
        var path = parts.path
        while path.hasSuffix("/") { path.removeLast() }
        if path.hasSuffix("/search") { path.removeLast("/search".count) }
        let port = parts.port.map { ":\($0)" } ?? ""
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost)\(port)\(path)"
    }

    /// The search endpoint of a kept address, or nil when the text is not a valid one (a hand-
    /// edited settings file): OpenStreetMap's is used then.
    public static func searchEndpoint(for address: String?) -> URL? {
        guard let address, let valid = try? Self.address(from: address) else { return nil }
        return URL(string: valid + "/search")
    }

    /// Loopback: "localhost", 127.0.0.0/8, ::1.
    private static func isThisComputer(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare == "localhost" { return true }
        if let v4 = IPv4Address(canonical: bare) { return v4.octets[0] == 127 }
        if let v6 = IPv6Address(bare) { return v6.bytes == [UInt8](repeating: 0, count: 15) + [1] }
        return false
    }
}
