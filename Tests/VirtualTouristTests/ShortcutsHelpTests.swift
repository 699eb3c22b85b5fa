import Foundation
import GtkKit
@testable import VirtualTourist
import XCTest

/// The Keyboard Shortcuts help against the keys the app installs: every key a page's table or an
/// action handles has its line, under its page, and the help lists nothing that is not handled.
final class ShortcutsHelpTests: XCTestCase {
    /// A key as the help and the tables name it, with the page and line it belongs to.
    private struct Shown: Hashable {
        let group: ShortcutsHelp.Group
        let title: String
        let accelerator: String
    }

    /// The owners of the tables `installed` reads; the next test finds every table in the sources.
    private static let tableOwners: Set<String> = ["MainWindow", "PhotoGrid", "PhotoViewer"]

    /// What the window and the pages install: their tables' keys, and the actions' accelerators.
    private var installed: [Shown] {
        MainActor.assumeIsolated {
            let tables = [MainWindow.keys.entries.map { ($0.group, $0.title, $0.bindings.map(\.accelerator)) },
                          PhotoGrid.keys.entries.map { ($0.group, $0.title, $0.bindings.map(\.accelerator)) },
                          PhotoViewer.keys.entries.map { ($0.group, $0.title, $0.bindings.map(\.accelerator)) }]
            let pages = tables.joined().flatMap { group, title, keys in
                keys.map { Shown(group: group, title: title, accelerator: $0) }
            }
            let actions = AppAction.allCases.flatMap { action in
                action.help.flatMap { line in
                    line.accelerator.split(separator: " ").map {
                        Shown(group: line.group, title: line.title, accelerator: String($0))
                    }
                }
            }
            return pages + actions
        }
    }

    /// Every key of every line of the help, as the help widget gets it.
    private var listed: [Shown] {
        MainActor.assumeIsolated {
            ShortcutsHelp.groups.flatMap { group, lines in
                lines.flatMap { line in
                    line.accelerator.split(separator: " ").map {
                        Shown(group: group, title: line.title, accelerator: String($0))
                    }
                }
            }
        }
    }

    func testEveryInstalledKeyIsInTheHelpAndTheHelpListsNothingElse() {
        XCTAssertEqual(Set(installed), Set(listed))
        XCTAssertEqual(installed.count, Set(installed).count, "a key declared twice for one line")
    }

    func testEveryActionWithAcceleratorsHasAHelpLineNamingAllOfThem() {
        MainActor.assumeIsolated {
            for action in AppAction.allCases where !action.accelerators.isEmpty {
                let named = Set(action.help.flatMap { $0.accelerator.split(separator: " ").map(String.init) })
                XCTAssertEqual(named, Set(action.accelerators), "\(action.detailedName)'s help lines")
            }
        }
    }

    /// On one page a key does one thing: two lines of a group must not claim the same key.
    func testNoKeyHasTwoLinesOnOnePage() {
        for group in ShortcutsHelp.Group.allCases {
            let keys = listed.filter { $0.group == group }.map(\.accelerator)
            XCTAssertEqual(keys.count, Set(keys).count, "\(group): \(keys)")
        }
    }

    /// The drift the tables ended: Backspace removed a photo, and the help did not say so.
    func testBackspaceRemovesTheSelectedPhotoAndTheHelpSaysSo() {
        MainActor.assumeIsolated {
            let remove = PhotoGrid.keys.entries.first { entry in
                entry.bindings.contains { $0.matches(.backSpace, []) }
            }
            XCTAssertEqual(remove?.title, "Remove the selected photo")
        }
        XCTAssertTrue(listed.contains(Shown(group: .album, title: "Remove the selected photo", accelerator: "BackSpace")))
    }

    func testModifiersMatchAsTheOldHandlersDid() {
        MainActor.assumeIsolated {
            let viewer = PhotoViewer.keys.entries.flatMap(\.bindings)
            func handles(_ key: Key, _ state: Modifiers) -> Bool { viewer.contains { $0.matches(key, state) } }
            XCTAssertTrue(handles(.left, []))
            XCTAssertFalse(handles(.left, .control), "Ctrl+← is not the viewer's")
            XCTAssertFalse(handles(.left, .alt), "Alt+← is \"back\"")
            XCTAssertTrue(handles(.plus, .control), "Ctrl++ zooms too")
            XCTAssertTrue(handles(.S, .control), "Ctrl+Shift+S saves too")
            XCTAssertFalse(handles(.s, []), "S alone is no key")
            XCTAssertFalse(handles(.s, [.control, .alt]))
            let grid = PhotoGrid.keys.entries.flatMap(\.bindings)
            XCTAssertTrue(grid.contains { $0.matches(.keypadDelete, .control) }, "the grid ignores modifiers")
        }
    }

    /// Keys reach the app only through a table (KeyTable) or an action (AppAction): no other file
    /// handles key presses or sets accelerators, and every table declared is one compared above.
    func testEveryKeyHandlerInTheSourcesIsATableThatTheHelpReads() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/VirtualTourist").standardized
        var owners: Set<String> = []
        for case let file as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)!
        where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            let name = file.lastPathComponent
            for handler in ["KeyController(", "SinglePressShortcut(", "onKeyPressed", "setAccels("] {
                let allowed = name == "KeyTable.swift" || (name == "AppAction.swift" && handler == "setAccels(")
                XCTAssertTrue(allowed || !text.contains(handler), "\(name) handles keys itself (\(handler)): declare a KeyTable")
            }
            let declared = try NSRegularExpression(pattern: #"static var \w+: KeyTable<(\w+)>"#)
            for match in declared.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                owners.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        XCTAssertEqual(owners, Self.tableOwners, "a key table the help and this test do not read")
    }
}
