// libFuzzer target: photo addresses from a service's answer, judged by AddressPolicy.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAddressPolicy(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    _ = IPv6Address(text)
    _ = IPv4Address(canonical: text)
    _ = AddressPolicy.isPublicHost(text.lowercased())
    guard let url = URL(string: text) else { return 0 }
    let demo = AddressPolicy(trustedEndpoints: [URL(string: "http://127.0.0.1:8765/api")!])
    if AddressPolicy.production.allows(url) {
        // Whatever is allowed is https with a host, and still allowed with the demo policy.
        precondition(url.scheme?.lowercased() == "https" && url.host != nil && url.user == nil)
        precondition(demo.allows(url))
        if let host = url.host, let v4 = IPv4Address(canonical: host) { precondition(v4.isPublic) }
    }
    return 0
}
