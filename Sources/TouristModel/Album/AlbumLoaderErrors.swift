import Foundation
import Translation

// What the album makes of errors: which are cancellations or network failures, and what it says.
extension AlbumLoader {
    static func isCancellation(_ error: Error) -> Bool {
        error is CancellationError || (error as? HTTPError) == .cancelled || (error as? PhotoSourceError) == .cancelled
    }

    /// A sentence for the user, whichever layer the error came from.
    public static func message(for error: Error, service: String) -> String {
        if let error = error as? HTTPError { return PhotoSourceError.from(error, service: service).errorDescription ?? "\(error)" }
        if let error = error as? DurableFile.IOError { return PhotoSourceError.cannotSave(error.reason).errorDescription ?? error.reason }
        if let error = error as? CocoaError, error.code == .fileWriteOutOfSpace {
            return PhotoSourceError.cannotSave(tr("the disk is full")).errorDescription ?? "\(error)"
        }
        if let error = error as? LocalizedError, let text = error.errorDescription { return text }
        return error.localizedDescription
    }

    /// A host asking the app to slow down (429, or the key's budget spent): the seconds it asked
    /// for, if it said, and why.
    static func slowDown(_ error: Error) -> (retryAfter: Double?, reason: HostPauses.Reason)? {
        switch error {
        case HTTPError.rateLimited(let retryAfter): (retryAfter, .tooManyRequests)
        case HTTPError.status(429): (nil, .tooManyRequests)
        case PhotoSourceError.rateLimited(_, let retryAfter): (retryAfter, .tooManyRequests)
        case PhotoSourceError.budgetSpent(_, let retryAfter): (retryAfter, .budgetSpent)
        default: nil
        }
    }

    /// Could not reach the service (as opposed to an answer that was wrong).
    func isNetworkFailure(_ error: Error) -> Bool {
        switch error {
        case HTTPError.network, HTTPError.timedOut, HTTPError.tooSlow,
             PhotoSourceError.network, PhotoSourceError.timedOut: true
        default: false
        }
    }
}
