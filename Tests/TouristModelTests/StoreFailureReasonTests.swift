import Foundation
import GRDB
import XCTest
@testable import TouristModel

/// The words the app puts after "Pin not saved:" and "Settings not saved:".
final class StoreFailureReasonTests: XCTestCase {
    func testDatabaseErrorsSayWhatTheUserCanDo() {
        XCTAssertEqual(Store.reason(for: DatabaseError(resultCode: .SQLITE_FULL)), "the disk is full")
        XCTAssertEqual(Store.reason(for: DatabaseError(resultCode: .SQLITE_READONLY)), "the database file is read-only")
        XCTAssertEqual(Store.reason(for: DatabaseError(resultCode: .SQLITE_IOERR_WRITE)), "the disk could not be written to",
                       "extended codes count as their primary code")
        XCTAssertEqual(Store.reason(for: DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "refused by a trigger")),
                       "refused by a trigger", "SQLite's message without the statement")
    }

    func testFileErrorsByTheirCode() {
        XCTAssertEqual(Store.reason(for: DurableFile.IOError(operation: "write", path: "/x", code: ENOSPC)), "the disk is full")
        XCTAssertEqual(Store.reason(for: POSIXError(.EROFS)), "the disk is read-only")
        XCTAssertEqual(Store.reason(for: StoreError.invalidCoordinate), "The location is not a valid place on the map")
    }
}
