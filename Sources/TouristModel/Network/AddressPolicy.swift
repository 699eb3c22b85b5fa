import Foundation

/// Which addresses the app may fetch photos (and follow redirects) from.
///
/// A photo address comes from a service's answer, so a hostile or compromised service could
/// point the app at the user's router or another machine on the LAN. In production only https
/// to a public host is allowed. The endpoints a developer configured (the VT_* overrides the
/// tests and the offline demo use) are trusted as whole origins: that is the only way to reach
/// http or loopback. A pure function of the URL text: names that resolve to private addresses
/// (DNS rebinding) must be checked where the connection is made.
public struct AddressPolicy: Sendable, Equatable {
    struct Origin: Hashable, Sendable {
        let scheme: String
        let host: String
        let port: Int
    }

    let trustedOrigins: Set<Origin>

    /// Only https to public hosts.
    public static let production = AddressPolicy(trustedEndpoints: [])

    /// `trustedEndpoints`: configured service endpoints; anything on their scheme, host and
    /// port is allowed as is.
    public init(trustedEndpoints: [URL]) {
        trustedOrigins = Set(trustedEndpoints.compactMap(Self.origin))
    }

    public func allows(_ url: URL) -> Bool {
        // Userinfo has no business in a photo address ("https://flickr.com@10.0.0.1/"), and
        // text parsers may disagree about is refused rather than interpreted.
        guard url.user == nil, url.password == nil, Self.isPlainText(url.absoluteString),
              let authority = Self.authority(url), !authority.contains("@"),
              let origin = Self.origin(url) else { return false }
        if trustedOrigins.contains(origin) { return true }
        return origin.scheme == "https" && Self.isPublicHost(origin.host, bracketed: authority.contains("["))
    }

    /// For the connection itself, with the address a host name resolved to (e.g. "10.0.0.7" or
    /// "::1" from libsoup's connection event): a name `allows` accepted can still resolve into
    /// the LAN ("127.0.0.1.nip.io", DNS rebinding). Trusted origins may use any address.
    public func allowsConnection(to address: String, for url: URL) -> Bool {
        if let origin = Self.origin(url), trustedOrigins.contains(origin) { return true }
        if address.contains(":") { return IPv6Address(address)?.isGlobalUnicast ?? false }
        return IPv4Address(canonical: address)?.isPublic ?? false
    }

    // MARK: Parsing

    static func origin(_ url: URL) -> Origin? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              var host = url.host(percentEncoded: true)?.lowercased(), !host.isEmpty,
              !host.contains("%") else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // "example.com." is the same host as "example.com".
        if host.hasSuffix("."), !host.contains(":") { host.removeLast() }
        guard !host.isEmpty else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { return nil }
        return Origin(scheme: scheme, host: host, port: port)
    }

    /// Printable ASCII without the characters URL parsers treat differently (backslash,
    /// quotes, spaces, braces…).
    private static func isPlainText(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && !"\\\"<>^`{|}".utf8.contains(byte)
        }
    }

    /// The "user@host:port" part of the address as written.
    private static func authority(_ url: URL) -> Substring? {
        let text = url.absoluteString
        guard let start = text.range(of: "://")?.upperBound else { return nil }
        return text[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    }

    // MARK: Public hosts

    /// Single-label names ("router") resolve through the search domain into the LAN; these
    /// suffixes are reserved for local use.
    private static let localSuffixes = [".localhost", ".local", ".localdomain", ".internal", ".lan", ".home.arpa",
                                        ".intranet", ".corp", ".home"]

    static func isPublicHost(_ host: String, bracketed: Bool = false) -> Bool {
        if bracketed || host.contains(":") {
            guard let address = IPv6Address(host) else { return false }
            return address.isGlobalUnicast
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }) else { return false }
        // A numeric last label means an IPv4 address in some spelling: inet_aton accepts
        // "2130706433", "0x7f.1", "0177.0.0.1" and "127.1". Only the canonical dotted quad
        // is interpreted; every other numeric form is refused.
        if let last = labels.last, isNumeric(last) {
            guard let address = IPv4Address(canonical: host) else { return false }
            return address.isPublic
        }
        if host == "localhost" || localSuffixes.contains(where: { host.hasSuffix($0) }) { return false }
        return labels.allSatisfy { label in
            label.utf8.count <= 63 && label.utf8.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x5F
            }
        }
    }

    private static func isNumeric(_ label: Substring) -> Bool {
        let lower = label.lowercased()
        if lower.hasPrefix("0x") { return lower.dropFirst(2).allSatisfy(\.isHexDigit) }
        return lower.allSatisfy { $0.isASCII && $0.isNumber }
    }
}

/// A dotted-quad IPv4 address.
struct IPv4Address: Equatable {
    let octets: [UInt8]

    /// Only "a.b.c.d" with decimal parts 0...255 and no leading zeros (which some parsers
    /// read as octal).
    init?(canonical text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  part == "0" || !part.hasPrefix("0"), let value = UInt8(part) else { return nil }
            octets.append(value)
        }
        self.octets = octets
    }

    init(octets: [UInt8]) {
        self.octets = octets
    }

    /// Not loopback, private, link-local, shared, multicast, reserved or documentation space.
    var isPublic: Bool {
        let (a, b, c) = (octets[0], octets[1], octets[2])
        switch a {
        case 0, 10, 127: return false                       // "this network", private, loopback
        case 100 where (64...127).contains(b): return false  // carrier-grade NAT
        case 169 where b == 254: return false                // link-local
        case 172 where (16...31).contains(b): return false   // private
        case 192 where b == 168: return false                // private
        case 192 where b == 0 && (c == 0 || c == 2): return false   // IETF, TEST-NET-1
        case 198 where b == 18 || b == 19: return false      // benchmarking
        case 198 where b == 51 && c == 100: return false     // TEST-NET-2
        case 203 where b == 0 && c == 113: return false      // TEST-NET-3
        case 224...255: return false                         // multicast, reserved, broadcast
        default: return true
        }
    }
}

/// An IPv6 address in text form (RFC 4291, with "::" and a trailing dotted quad).
struct IPv6Address: Equatable {
    let bytes: [UInt8]

    init?(_ text: String) {
        // Zone ids ("fe80::1%eth0") only exist for link-local addresses: refused by the caller
        // already ("%"), and never valid here.
        guard !text.isEmpty, text.utf8.count <= 45, !text.contains("%") else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."),
                   let v4 = IPv4Address(canonical: String(piece)) {
                    result.append(UInt16(v4.octets[0]) << 8 | UInt16(v4.octets[1]))
                    result.append(UInt16(v4.octets[2]) << 8 | UInt16(v4.octets[3]))
                } else {
                    guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                    result.append(value)
                }
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        let tail = halves.count == 2 ? groups(halves[1]) : []
        guard let tail else { return nil }
        let missing = 8 - head.count - tail.count
        if halves.count == 2 {
            guard missing >= 1 else { return nil }
        } else {
            guard missing == 0 else { return nil }
        }
        let all = head + [UInt16](repeating: 0, count: max(missing, 0)) + tail
        bytes = all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// 2000::/3 only, which leaves out loopback, unspecified, IPv4-mapped, unique-local
    /// (fc00::/7), link-local (fe80::/10) and multicast; minus the parts of it that are
    /// documentation (2001:db8::/32) or tunnel an IPv4 address (Teredo 2001::/32, 6to4 2002::/16).
    var isGlobalUnicast: Bool {
        guard bytes[0] & 0xE0 == 0x20 else { return false }
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] == 0x0D, bytes[3] == 0xB8 { return false }
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] == 0x00, bytes[3] == 0x00 { return false }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return false }
        return true
    }
}
