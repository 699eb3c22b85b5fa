import Foundation
@testable import TouristModel
import Translation
import XCTest

/// gettext through tr/trn with the real German catalogue (po/de.po compiled here), and numbers
/// in the C library's numeric locale. Both need the de_DE.UTF-8 locale, which
/// meson-helpers/dev generates: gettext ignores catalogues in the C locale.
final class LocalizationTests: XCTestCase {
    private static let german = "de_DE.UTF-8"

    /// Switches `category` to German for `body`, then back to the C locale the other tests expect
    /// (String(format:) follows LC_NUMERIC too).
    private func inGerman(_ category: Int32, _ body: () throws -> Void) throws {
        guard setlocale(category, Self.german) != nil else {
            return XCTFail("the \(Self.german) locale is missing: meson-helpers/dev test generates it")
        }
        defer { setlocale(category, "C") }
        try body()
    }

    private func compileGermanCatalogue() throws -> URL {
        let folder = try makeTemporaryDirectory(self)
        let catalogue = folder.appendingPathComponent("de/LC_MESSAGES/\(Localization.domain).mo")
        try FileManager.default.createDirectory(at: catalogue.deletingLastPathComponent(), withIntermediateDirectories: true)
        let po = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../po/de.po")
        let msgfmt = Process()
        msgfmt.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        msgfmt.arguments = ["msgfmt", "-o", catalogue.path, po.standardized.path]
        try msgfmt.run()
        msgfmt.waitUntilExit()
        XCTAssertEqual(msgfmt.terminationStatus, 0, "msgfmt (apt install gettext) could not compile po/de.po")
        return folder
    }

    func testPluralFormsComeFromTheCatalogue() throws {
        let folder = try compileGermanCatalogue()
        let saved = ProcessInfo.processInfo.environment["LANGUAGE"]
        unsetenv("LANGUAGE")  // LC_MESSAGES decides, not a list the test's caller may have set
        defer { if let saved { setenv("LANGUAGE", saved, 1) } }
        Localization.bind(to: folder.path)
        try inGerman(LC_MESSAGES) {
            XCTAssertEqual(String(format: trn("%@ photo", "%@ photos", 1), "1"), "1 Foto")
            XCTAssertEqual(String(format: trn("%@ photo", "%@ photos", 2), "2"), "2 Fotos")
            XCTAssertEqual(String(format: trn("%@ photo", "%@ photos", 0), "0"), "0 Fotos")
            XCTAssertEqual(tr("Undo"), "Rückgängig")
            XCTAssertEqual(Pin(latitude: 1, longitude: 2).accessibleName.hasPrefix("Stecknadel bei "), true)
            // Positional arguments let a translation reorder them; the German one keeps the order.
            XCTAssertEqual(String(format: tr("Photo %1$@ of %2$@: %3$@"), "3", "21", "Eiffelturm"), "Foto 3 von 21: Eiffelturm")
        }
        // Back in the C locale: the strings as written.
        XCTAssertEqual(String(format: trn("%@ photo", "%@ photos", 1), "1"), "1 photo")
        XCTAssertEqual(tr("Undo"), "Undo")
    }

    func testUntranslatedStringsComeBackWhole() {
        // gettext hands back the pointer it was given; the text must be read before that goes.
        for length in [1, 15, 16, 100, 5000] {
            let text = String(repeating: "é", count: length)
            XCTAssertEqual(tr(text), text)
            XCTAssertEqual(trn(text, text + "s", 2), text + "s")
            XCTAssertEqual(trn(text, text + "s", 1), text)
        }
    }

    func testNumbersFollowTheNumericLocale() throws {
        XCTAssertEqual(Localization.count(1234), "1234", "the C locale has no grouping")
        XCTAssertEqual(Localization.coordinates(Coordinate(latitude: 48.858_37, longitude: 2.294_48), decimals: 4),
                       "48.8584, 2.2945")
        try inGerman(LC_NUMERIC) {
            XCTAssertEqual(Localization.count(1234), "1.234")
            XCTAssertEqual(Localization.count(1_234_567), "1.234.567")
            XCTAssertEqual(Localization.decimal(48.858_37, decimals: 4), "48,8584")
            XCTAssertEqual(Localization.decimal(-0.000_01, decimals: 4), "0,0000", "no minus zero")
            // A decimal comma needs another separator between the two numbers.
            XCTAssertEqual(Localization.coordinates(Coordinate(latitude: -33.85, longitude: 151.2), decimals: 2),
                           "-33,85; 151,20")
        }
    }
}
