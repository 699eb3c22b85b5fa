import Foundation
import GRDB
import Translation

extension Store {
    /// Why a write failed, as a phrase for a message ("Pin not saved: the disk is full"; the
    /// phrases' translations start in lower case too, where the language allows). SQLite's
    /// own text names the statement and its error number, which tell the user nothing.
    public static func reason(for error: Error) -> String {
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_FULL: return tr("the disk is full")
            case .SQLITE_READONLY: return tr("the database file is read-only")
            case .SQLITE_PERM, .SQLITE_AUTH, .SQLITE_CANTOPEN: return tr("Virtual Tourist may not write to its data folder")
            case .SQLITE_IOERR: return tr("the disk could not be written to")
            case .SQLITE_BUSY, .SQLITE_LOCKED: return tr("the database is in use by another program")
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: return tr("the database is damaged; restart Virtual Tourist to repair it")
            // Translators: %@ is SQLite's error number.
            default: return error.message ?? String(format: tr("database error %@"), String(error.resultCode.rawValue))
            }
        }
        let code: Int32? = switch error {
        case let error as DurableFile.IOError: error.code
        case let error as POSIXError: error.code.rawValue
        case let error as CocoaError: (error.userInfo[NSUnderlyingErrorKey] as? POSIXError)?.code.rawValue
        default: nil
        }
        switch code {
        case ENOSPC, EDQUOT: return tr("the disk is full")
        case EROFS: return tr("the disk is read-only")
        case EACCES, EPERM: return tr("Virtual Tourist may not write there")
        default: return error.localizedDescription
        }
    }
}
