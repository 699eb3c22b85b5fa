import Foundation
import XCTest
@testable import TouristModel

/// Commons' Artist field is HTML from the network: any input must be cheap to strip.
final class HTMLTextTests: XCTestCase {
    /// 200,000 × "<a" kept the old stripper busy for over 30 s (every "<a" searched the rest
    /// of the text for a ">"). Now the input is capped and the scan is one pass.
    func testUnclosedTagsAreTextAndTheInputIsCapped() {
        let hostile = String(repeating: "<a", count: 200_000)
        let text = HTMLText.plain(hostile)
        XCTAssertLessThanOrEqual(text.unicodeScalars.count, HTMLText.maxInputScalars)
        XCTAssertEqual(text, String(repeating: "<a", count: HTMLText.maxInputScalars / 2))
    }

    func testManyTagsClosedOnlyAtTheEnd() {
        // Every "<a" shares the single ">" at the end: one tag, no text.
        XCTAssertEqual(HTMLText.plain(String(repeating: "<a ", count: 5_000) + ">tail"), "tail")
        // A ">" found once serves every later "<" before it.
        XCTAssertEqual(HTMLText.plain("<b>x</b> 1 <i 2 < 3 >y"), "x 1 y")
    }

    func testTagsAfterAnUnclosedOneStillStripped() {
        XCTAssertEqual(HTMLText.plain("a <b>bold</b> <unclosed"), "a bold <unclosed")
        XCTAssertEqual(HTMLText.plain("<p>one</p><p>two</p>"), "one two")
        XCTAssertEqual(HTMLText.plain("<SPAN>Ann</SPAN><BR>Bob"), "Ann Bob")
        XCTAssertEqual(HTMLText.plain("<<a>>"), "<>")
    }

    func testEntitiesThatAreNotCharactersStayText() {
        XCTAssertEqual(HTMLText.plain("a&#0;b &#x110000; &#xD800; &#99999999999;"),
                       "a&#0;b &#x110000; &#xD800; &#99999999999;")
        XCTAssertEqual(HTMLText.plain("tab&#9;here &#233;t&eacute;"), "tab here ét&eacute;")
        XCTAssertEqual(HTMLText.plain(String(repeating: "&", count: 50_000)).count, HTMLText.maxInputScalars)
    }

    func testNonASCIIAndEmpty() {
        XCTAssertEqual(HTMLText.plain(""), "")
        XCTAssertEqual(HTMLText.plain("<a href='x'>Zoë 👩‍👩‍👧</a>"), "Zoë 👩‍👩‍👧")
        XCTAssertEqual(HTMLText.plain("<ä>x</ä>"), "x")
    }

    /// Found by the html fuzz target: NUL and other control bytes went through to the label
    /// text (and would cut it short in C).
    func testFuzzFindingControlCharactersAreDropped() throws {
        let input = try XCTUnwrap(Data(base64Encoded: "TGluZSBvbmU8YnIvPkxpbmUmbmJzcD90d28gJiN4NDE7JiM2Njvj2XVua25vHQAAAAAAAAByZTxwPvBhcmE8L3A+PCEtLSBjIC0tPg=="))
        let text = HTMLText.plain(String(decoding: input, as: UTF8.self))
        XCTAssertFalse(text.unicodeScalars.contains { $0.properties.generalCategory == .control }, text)
        XCTAssertTrue(text.hasPrefix("Line one Line"), text)
        XCTAssertEqual(HTMLText.plain("a\u{0}b\u{7}c\u{1B}[31m\td"), "abc[31m d")
    }
}
