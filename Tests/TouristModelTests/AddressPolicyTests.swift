import Foundation
import XCTest
@testable import TouristModel

/// Photo addresses come from a service's answer: only https to public hosts, unless the
/// developer pointed the app at a service of their own (VT_* endpoints).
final class AddressPolicyTests: XCTestCase {
    private func allowed(_ text: String, by policy: AddressPolicy = .production) -> Bool {
        guard let url = URL(string: text) else { return false }
        return policy.allows(url)
    }

    func testPublicHTTPSIsAllowed() {
        for text in ["https://live.staticflickr.com/65535/5301_abc123_z.jpg",
                     "https://upload.wikimedia.org/wikipedia/commons/thumb/a/ab/X.jpg/640px-X.jpg",
                     "HTTPS://Upload.Wikimedia.ORG/x.jpg", "https://example.com./x.jpg", "https://a.b.example:8443/x",
                     "https://8.8.8.8/x.jpg", "https://93.184.216.34/", "https://[2606:4700::1111]/x",
                     "https://[2a00:1450:4001:82b::200e]:443/x", "https://xn--80ak6aa92e.com/x",
                     "https://example.com/a%20b.jpg?x=1#frag"] {
            XCTAssertTrue(allowed(text), text)
        }
    }

    func testPlainHTTPIsRefusedInProduction() {
        XCTAssertFalse(allowed("http://live.staticflickr.com/x.jpg"))
        XCTAssertFalse(allowed("http://8.8.8.8/x.jpg"))
        XCTAssertFalse(allowed("ftp://example.com/x.jpg"))
        XCTAssertFalse(allowed("file:///etc/passwd"))
        XCTAssertFalse(allowed("data:image/png;base64,AAAA"))
    }

    func testLoopbackAndPrivateIPv4AreRefused() {
        for host in ["127.0.0.1", "127.1.2.3", "127.255.255.254", "10.0.0.1", "10.255.255.255",
                     "172.16.0.1", "172.31.255.255", "192.168.0.1", "192.168.255.254", "169.254.169.254",
                     "169.254.0.1", "0.0.0.0", "0.1.2.3", "100.64.0.1", "100.127.255.255", "192.0.0.8",
                     "192.0.2.1", "198.18.0.1", "198.19.255.1", "198.51.100.7", "203.0.113.9",
                     "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255"] {
            XCTAssertFalse(allowed("https://\(host)/x.jpg"), host)
            XCTAssertFalse(allowed("https://\(host):8443/x.jpg"), host)
        }
        for host in ["172.15.255.255", "172.32.0.1", "100.63.255.255", "100.128.0.1", "169.253.1.1",
                     "192.167.1.1", "11.0.0.1", "126.255.255.255", "128.0.0.1", "223.255.255.255"] {
            XCTAssertTrue(allowed("https://\(host)/x.jpg"), "\(host) is public")
        }
    }

    func testIPv6LoopbackPrivateAndLinkLocalAreRefused() {
        for host in ["::1", "::", "0:0:0:0:0:0:0:1", "fc00::1", "fd12:3456:789a::1", "fe80::1", "febf::1",
                     "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:8.8.8.8", "::127.0.0.1",
                     "64:ff9b::7f00:1", "2001:db8::1", "2001::1", "2002:7f00:1::1", "100::1"] {
            XCTAssertFalse(allowed("https://[\(host)]/x.jpg"), host)
        }
        XCTAssertFalse(allowed("https://[fe80::1%25eth0]/x.jpg"), "zone ids")
        XCTAssertFalse(allowed("https://[v1.x]/x.jpg"), "IPvFuture")
        XCTAssertFalse(allowed("https://[2001:4860::8888::1]/"), "two ::")
        XCTAssertFalse(allowed("https://[2001:4860:1:2:3:4:5:6:7]/"), "nine groups")
        XCTAssertFalse(allowed("https://[12345::1]/"), "group too long")
    }

    func testLocalNamesAreRefused() {
        for host in ["localhost", "LOCALHOST", "localhost.", "foo.localhost", "router", "printer.local",
                     "nas.lan", "box.home.arpa", "db.internal", "host.localdomain", "intranet"] {
            XCTAssertFalse(allowed("https://\(host)/x.jpg"), host)
        }
    }

    /// inet_aton reads all of these as 127.0.0.1 (or another private address).
    func testNumericHostTricksAreRefused() {
        for host in ["2130706433", "0x7f000001", "0x7F.0.0.1", "0177.0.0.1", "127.1", "127.0.1", "017700000001",
                     "3232235521", "0xc0a80001", "10.1", "1.2.3.4.5", "08.8.8.8", "8.8.8.08", "1.1.1.256",
                     "example.0x10", "example.123", "%31%32%37.0.0.1", "127.0.0.1.", "1e2.0.0.1"] {
            XCTAssertFalse(allowed("https://\(host)/x.jpg"), host)
            XCTAssertFalse(allowed("http://\(host)/x.jpg"), host)
        }
    }

    func testUserinfoAndParserConfusionAreRefused() {
        for text in ["https://live.staticflickr.com@127.0.0.1/x.jpg", "https://user:pw@example.com/x.jpg",
                     "https://example.com\\@127.0.0.1/x.jpg", "https://@example.com/x.jpg",
                     "https:///x.jpg", "https://exa%6dple.com/x.jpg",
                     "https://example.com:0/x.jpg", "https://ex_ample.com:99999/x"] {
            XCTAssertFalse(allowed(text), text)
        }
        // A "@" after the host is path or fragment, not userinfo.
        XCTAssertTrue(allowed("https://example.com/a@b.jpg"))
        XCTAssertFalse(allowed("https://127.0.0.1#@example.com/"))
    }

    func testConfiguredEndpointsAreTheOnlyWayToLoopback() throws {
        let endpoint = try XCTUnwrap(URL(string: "http://127.0.0.1:8765/flickr/services/rest/"))
        let demo = AddressPolicy(trustedEndpoints: [endpoint])
        XCTAssertTrue(allowed("http://127.0.0.1:8765/images/1_640x480.jpg", by: demo))
        XCTAssertTrue(allowed("HTTP://127.0.0.1:8765/other/path", by: demo))
        XCTAssertFalse(allowed("http://127.0.0.1:8766/images/1.jpg", by: demo), "another port")
        XCTAssertFalse(allowed("https://127.0.0.1:8765/images/1.jpg", by: demo), "another scheme")
        XCTAssertFalse(allowed("http://localhost:8765/images/1.jpg", by: demo), "another host name")
        XCTAssertFalse(allowed("http://192.168.1.1/", by: demo))
        XCTAssertFalse(allowed("http://x@127.0.0.1:8765/images/1.jpg", by: demo), "userinfo even there")
        XCTAssertTrue(allowed("https://live.staticflickr.com/x.jpg", by: demo), "public https still fine")

        let v6 = AddressPolicy(trustedEndpoints: [try XCTUnwrap(URL(string: "http://[::1]/api"))])
        XCTAssertTrue(allowed("http://[::1]:80/img.jpg", by: v6), "default port spelled out")
        XCTAssertFalse(allowed("http://[::1]:8080/img.jpg", by: v6))
    }

    func testSourcesTrustOnlyAReplacedEndpoint() throws {
        let client = FakeHTTPClient { _ in Data() }
        XCTAssertEqual(FlickrSource(apiKey: "k", client: client).addressPolicy, .production)
        XCTAssertEqual(CommonsSource(client: client).addressPolicy, .production)
        let local = try XCTUnwrap(URL(string: "http://127.0.0.1:9/commons/w/api.php"))
        XCTAssertTrue(CommonsSource(endpoint: local, client: client).addressPolicy
            .allows(try XCTUnwrap(URL(string: "http://127.0.0.1:9/images/c1.jpg"))))
        XCTAssertFalse(FlickrSource(apiKey: "k", client: client).addressPolicy
            .allows(try XCTUnwrap(URL(string: "http://127.0.0.1:9/images/c1.jpg"))))
    }

    /// The connection opened during a search goes to where the photos come from: the
    /// production photo host, or a replaced endpoint's origin (which its policy trusts).
    func testPhotoOriginIsTheSourcesPhotoHost() throws {
        let client = FakeHTTPClient { _ in Data() }
        XCTAssertEqual(FlickrSource(apiKey: "k", client: client).photoOrigin?.absoluteString, "https://live.staticflickr.com/")
        XCTAssertEqual(CommonsSource(client: client).photoOrigin?.absoluteString, "https://upload.wikimedia.org/")
        let local = try XCTUnwrap(URL(string: "http://127.0.0.1:9/commons/w/api.php"))
        let commons = CommonsSource(endpoint: local, client: client)
        let origin = try XCTUnwrap(commons.photoOrigin)
        XCTAssertEqual(origin.absoluteString, "http://127.0.0.1:9/")
        XCTAssertTrue(commons.addressPolicy.allows(origin))
        for source in [FlickrSource(apiKey: "k", client: client) as PhotoSource, CommonsSource(client: client)] {
            XCTAssertTrue(source.addressPolicy.allows(try XCTUnwrap(source.photoOrigin)))
        }
    }

    /// A hostile answer's LAN addresses never reach the album.
    func testSearchDropsPhotosOnRefusedAddresses() async throws {
        let body = """
            {"stat":"ok","photos":{"page":1,"pages":1,"total":3,"photo":[
              {"id":"1","secret":"s","server":"1","url_z":"http://192.168.1.1/cgi-bin/reboot"},
              {"id":"2","secret":"s","server":"1","url_z":"https://live.staticflickr.com/1/2_s_z.jpg",
               "url_q":"https://2130706433/q.jpg"},
              {"id":"3","secret":"s","server":"1","url_z":"https://user@live.staticflickr.com/1/3_s_z.jpg"}]}}
            """
        // Cells large enough to take url_z, the address under test.
        let source = FlickrSource(apiKey: "k", cellPixels: 640, client: FakeHTTPClient { _ in Data(body.utf8) })
        let page = try await source.search(near: Coordinate(latitude: 1, longitude: 1), page: 1, perPage: 10)
        XCTAssertEqual(page.photos.map(\.sourceId), ["2"])
        XCTAssertNil(page.photos.first?.thumbnailURL)
    }

    /// Where a name resolved to, checked when connecting (DNS rebinding).
    func testResolvedAddressesAreCheckedForTheConnection() throws {
        let photo = try XCTUnwrap(URL(string: "https://127.0.0.1.nip.io/x.jpg"))
        XCTAssertTrue(AddressPolicy.production.allows(photo), "the name alone looks public")
        XCTAssertFalse(AddressPolicy.production.allowsConnection(to: "127.0.0.1", for: photo))
        XCTAssertFalse(AddressPolicy.production.allowsConnection(to: "::1", for: photo))
        XCTAssertFalse(AddressPolicy.production.allowsConnection(to: "fd00::5", for: photo))
        XCTAssertFalse(AddressPolicy.production.allowsConnection(to: "not an address", for: photo))
        XCTAssertTrue(AddressPolicy.production.allowsConnection(to: "151.101.1.69", for: photo))
        XCTAssertTrue(AddressPolicy.production.allowsConnection(to: "2a04:4e42::645", for: photo))

        let endpoint = try XCTUnwrap(URL(string: "http://localhost:8765/api"))
        let demo = AddressPolicy(trustedEndpoints: [endpoint])
        let local = try XCTUnwrap(URL(string: "http://localhost:8765/images/1.jpg"))
        XCTAssertTrue(demo.allowsConnection(to: "127.0.0.1", for: local))
        XCTAssertTrue(demo.allowsConnection(to: "::1", for: local))
        XCTAssertFalse(demo.allowsConnection(to: "127.0.0.1", for: photo))
    }
}
