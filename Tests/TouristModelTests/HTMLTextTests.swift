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

    /// Commons' artwork templates put machine labels in elements hidden with `display: none`;
    /// a browser never shows them, so neither may a title or an attribution.
    func testContentHiddenWithDisplayNoneIsDropped() {
        XCTAssertEqual(HTMLText.plain(#"Night in Nice<div style="display: none;">label QS:Len,"Night in Nice"</div>"#),
                       "Night in Nice")
        XCTAssertEqual(HTMLText.plain(#"<span lang="en">Night</span> <span style='DISPLAY : None !important'>x</span>in Nice"#),
                       "Night in Nice")
        XCTAssertEqual(HTMLText.plain(#"a<i style="color:red; display:none; margin: 0">b</i>c"#), "ac")
        XCTAssertEqual(HTMLText.plain(#"a<b style=display:none>b</b>c<em hidden>d</em>e"#), "ace")
        XCTAssertEqual(HTMLText.plain("a<p style=\"display:\n none\">b</p>c"), "a c")
        // Nested: everything inside a hidden element goes, whatever it holds.
        XCTAssertEqual(HTMLText.plain(#"1<div style="display:none">2<span style="display:inline">3<b>4</b></span>5</div>6"#), "1 6")
        // Void elements and comments inside open and close nothing.
        XCTAssertEqual(HTMLText.plain(#"1<div style="display:none">2<br>3<img src=x><!-- c -->4</div>5"#), "1 5")
        // Never rendered: script and style.
        XCTAssertEqual(HTMLText.plain("a<style>p { color: red }</style>b<script>x = 1</script>c"), "abc")
    }

    func testDisplayIsReadAsCSSReadsIt() {
        for visible in [#"display:block"#, #"display:none; display: inline"#, #"displays:none"#, #"x-display:none"#,
                        #"/* display:none */"#, #"display:none-ish"#, "display"] {
            XCTAssertEqual(HTMLText.plain("a<span style=\"\(visible)\">b</span>c"), "abc", visible)
        }
        for hidden in [#"display:none"#, #"DISPLAY:NONE"#, #"display:none !important; display:block"#,
                       #"display:block; display : none"#, #"color:red;display:/* x */none;"#, #"display: none!IMPORTANT"#] {
            XCTAssertEqual(HTMLText.plain("a<span style=\"\(hidden)\">b</span>c"), "ac", hidden)
        }
    }

    /// Markup as it comes, not as it should be: a browser closes what an end tag leaves open,
    /// ignores stray end tags, and hides to the end what is never closed.
    func testUnclosedAndStrayTagsAsABrowserReadsThem() {
        XCTAssertEqual(HTMLText.plain(#"<div>a<span style="display:none">b</div>c"#), "a c")
        XCTAssertEqual(HTMLText.plain(#"a</span></em>b<span style="display:none">c</b>d</span>e"#), "abe")
        XCTAssertEqual(HTMLText.plain(#"a<span style="display:none">b<span>c"#), "a")
        XCTAssertEqual(HTMLText.plain(#"a<p style="display:none">b<p>c"#), "a c", "a new paragraph ends the hidden one")
        XCTAssertEqual(HTMLText.plain(#"<ul><li style="display:none">a<li>b</ul>c"#), "b c")
        XCTAssertEqual(HTMLText.plain(#"a<br style="display:none">b"#), "a b", "a void element hides nothing after it")
        XCTAssertEqual(HTMLText.plain(#"a<span style="display:none"/>b</span>c"#), "ac", "as in a browser, /> does not close a span")
        XCTAssertEqual(HTMLText.plain(#"a<span style="display:none>b</span>c"#), "ac", "an unclosed quote: the value ends with the tag")
    }

    /// Deep nesting and many end tags cost linear time: each element is opened and closed once.
    func testDeepNestingStaysLinear() {
        let deep = String(repeating: "<span>", count: 1_500) + "x" + String(repeating: "</b>", count: 2_000)
        XCTAssertEqual(HTMLText.plain(deep), "x")
        let hiddenDeep = #"<i style="display:none">"# + String(repeating: "<div>", count: 1_500) + "y" + String(repeating: "</div>", count: 1_500) + "</i>z"
        XCTAssertEqual(HTMLText.plain(hiddenDeep), "z")
        // Capped input: a hidden element left open hides the rest, and the rest is cut anyway.
        XCTAssertEqual(HTMLText.plain("a<div hidden>" + String(repeating: "<i>b", count: 20_000)), "a")
    }
}
