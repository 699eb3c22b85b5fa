import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small POSIX helpers for writes that must survive a crash or power loss:
/// Foundation's atomic write neither fsyncs nor lets us choose the file mode.
enum DurableFile {
    struct IOError: Error, LocalizedError, CustomStringConvertible {
        let operation: String
        let path: String
        let code: Int32
        var description: String { "\(operation) \(path): \(reason)" }
        /// The system's words for the error, e.g. "Permission denied".
        var reason: String { String(cString: strerror(code)) }
        // So the app's error dialogs say what failed instead of a generic sentence.
        var errorDescription: String? { description }
    }

    /// Creates `url` exclusively with `mode`, writes all of `data` and fsyncs it.
    static func writeNew(_ data: Data, to url: URL, mode: mode_t) throws {
        let path = url.path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw IOError(operation: "open", path: path, code: errno) }
        var failure: IOError?
        // The umask may have removed bits; set the exact mode we promise.
        if fchmod(fd, mode) != 0 { failure = IOError(operation: "chmod", path: path, code: errno) }
        if failure == nil {
            data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < buffer.count, let base = buffer.baseAddress {
                    let written = write(fd, base + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        failure = IOError(operation: "write", path: path, code: errno)
                        return
                    }
                    offset += written
                }
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = IOError(operation: "fsync", path: path, code: errno) }
        if close(fd) != 0, failure == nil { failure = IOError(operation: "close", path: path, code: errno) }
        if let failure {
            unlink(path)
            throw failure
        }
    }

    /// Sets the mode of a file written by someone else (the HTTP client) and flushes it to disk.
    static func syncFile(_ url: URL, mode: mode_t) throws {
        let path = url.path
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw IOError(operation: "open", path: path, code: errno) }
        defer { close(fd) }
        guard fchmod(fd, mode) == 0 else { throw IOError(operation: "chmod", path: path, code: errno) }
        guard fsync(fd) == 0 else { throw IOError(operation: "fsync", path: path, code: errno) }
    }

    enum ReadOutcome {
        /// No such file (ENOENT): a normal first start.
        case missing
        case data(Data)
        /// A regular file larger than the limit; not read.
        case tooLarge
        /// Exists (or may exist) but could not be read: permissions, not a regular file, I/O error.
        case failed(IOError)
    }

    /// Reads a small regular file whole, telling "not there" apart from "cannot read".
    /// O_NONBLOCK so a FIFO put in its place cannot hang the caller.
    static func readSmallFile(_ url: URL, maxBytes: Int) -> ReadOutcome {
        let path = url.path
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            return errno == ENOENT ? .missing : .failed(IOError(operation: "open", path: path, code: errno))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failed(IOError(operation: "stat", path: path, code: errno)) }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            return .failed(IOError(operation: "read", path: path, code: kind == S_IFDIR ? EISDIR : EINVAL))
        }
        guard info.st_size <= maxBytes else { return .tooLarge }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failed(IOError(operation: "read", path: path, code: errno))
            }
            if count == 0 { return .data(data) }
            data.append(contentsOf: buffer[0..<count])
            // The file grew while being read.
            if data.count > maxBytes { return .tooLarge }
        }
    }

    /// Renames atomically within one directory, then fsyncs the directory so the new name is durable.
    /// Writes `data` under the temporary name, then renames it over `destination`, so readers
    /// see the old file or the whole new one; no temporary is left behind on failure.
    static func replace(_ destination: URL, with data: Data, via temporary: URL, mode: mode_t) throws {
        try writeNew(data, to: temporary, mode: mode)
        do {
            try renameDurably(temporary, to: destination)
        } catch {
            remove(temporary)
            throw error
        }
    }

    static func renameDurably(_ source: URL, to destination: URL) throws {
        guard rename(source.path, destination.path) == 0 else {
            throw IOError(operation: "rename", path: source.path, code: errno)
        }
        syncDirectory(destination.deletingLastPathComponent())
    }

    /// Best effort: some file systems refuse fsync on directories, which is not worth failing for.
    static func syncDirectory(_ directory: URL) {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// Removes a file, ignoring "not there".
    @discardableResult
    static func remove(_ url: URL) -> Bool {
        unlink(url.path) == 0
    }

    static func isRegularFile(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    static func exists(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0
    }

    /// No file, or an empty one (what SQLite starts a new database from).
    static func isMissingOrEmpty(_ url: URL) -> Bool {
        var info = stat()
        return stat(url.path, &info) != 0 || info.st_size == 0
    }

    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
    }

    /// "20261121T050000" in UTC: sortable, and free of ':' which some tools dislike in file names.
    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss"
        return formatter.string(from: date)
    }

    /// Moves `url` to "<name>.<label>-<timestamp>" (adding "-2", "-3"… if taken), never overwriting.
    /// Works for directories too (by rename). Returns the new location.
    static func moveAside(_ url: URL, now: Date, label: String = "corrupt") throws -> URL {
        let directory = url.deletingLastPathComponent()
        let stem = "\(url.lastPathComponent).\(label)-\(timestamp(now))"
        var candidate = directory.appendingPathComponent(stem)
        var counter = 2
        while exists(candidate) || exists(URL(fileURLWithPath: candidate.path + "-wal")) {
            candidate = directory.appendingPathComponent("\(stem)-\(counter)")
            counter += 1
        }
        // link + unlink instead of rename: link fails rather than replacing a file that appeared meanwhile.
        if link(url.path, candidate.path) == 0 {
            unlink(url.path)
        } else if errno == EEXIST || rename(url.path, candidate.path) != 0 {
            // Some file systems have no hard links; rename is fine there since the name was free.
            throw IOError(operation: "move", path: url.path, code: errno)
        }
        syncDirectory(directory)
        return candidate
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
