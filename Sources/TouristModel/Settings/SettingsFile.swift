import Foundation
import Synchronization
import Translation

/// Why the settings on disk are not in use. The app shows it: the user's API key may be in
/// that file, so they need to know it was not read.
public enum SettingsProblem: Error, Equatable, Sendable, LocalizedError {
    /// The file exists but could not be read (permissions, not a regular file, I/O error).
    /// Defaults are in use and the file is never written over in this session.
    case unreadable(path: String, reason: String)
    /// The file could not be used (not JSON settings, or far too large): it was kept under
    /// this name and defaults are in use.
    case movedAside(URL)

    public var errorDescription: String? {
        switch self {
        case .unreadable(let path, let reason):
            // Translators: %1$@ is the file's path, %2$@ the system's reason.
            return String(format: tr("The settings file %1$@ could not be read (%2$@). Default settings are in use and changes will not be saved over it; fix its permissions and restart Virtual Tourist."), path, reason)
        case .movedAside(let url):
            // Translators: %1$@ is the name the file was kept under, %2$@ its folder.
            return String(format: tr("The settings file could not be used, so default settings are in use. It was kept as %1$@ in %2$@."),
                          url.lastPathComponent, url.deletingLastPathComponent().path)
        }
    }
}

/// The settings file: JSON, replaced atomically, readable only by the user.
public struct SettingsFile: Sendable {
    /// Settings are a few hundred bytes; a larger file is not ours and is not read into memory.
    static let maxBytes = 1 << 20

    public let url: URL
    /// Set when the file could not be read: saving defaults over it would lose the user's data.
    /// Shared by copies, so any copy of this value refuses.
    private let readFailure = SaveGuard()

    public init(url: URL) {
        self.url = url
    }

    /// Settings to use; see `loadReporting` for what happens to a file that cannot be used.
    public func load() -> Settings {
        loadReporting().settings
    }

    /// Missing file: defaults, no problem. Unusable content (not JSON, not an object, too
    /// large): the file is moved aside (settings.json.corrupt-…) and defaults are used.
    /// Unreadable file: defaults are used, the file is left alone and `save` refuses to
    /// overwrite it. Out-of-range values are dropped one by one (see `Settings`).
    public func loadReporting() -> (settings: Settings, problem: SettingsProblem?) {
        load(now: Date())
    }

    func load(now: Date) -> (settings: Settings, problem: SettingsProblem?) {
        let data: Data
        switch DurableFile.readSmallFile(url, maxBytes: Self.maxBytes) {
        case .missing:
            readFailure.clear()
            return (Settings(), nil)
        case .failed(let error):
            return (Settings(), refuse(reason: error.reason))
        case .tooLarge:
            return moveAside(now: now)
        case .data(let contents):
            data = contents
        }
        if let settings = try? JSONDecoder().decode(Settings.self, from: data) {
            readFailure.clear()
            return (settings, nil)
        }
        return moveAside(now: now)
    }

    private func moveAside(now: Date) -> (settings: Settings, problem: SettingsProblem?) {
        do {
            let moved = try DurableFile.moveAside(url, now: now)
            readFailure.clear()
            return (Settings(), .movedAside(moved))
        } catch let error as DurableFile.IOError {
            // Still in place: writing over it would destroy what could not be kept.
            return (Settings(), refuse(reason: error.reason))
        } catch {
            return (Settings(), refuse(reason: error.localizedDescription))
        }
    }

    private func refuse(reason: String) -> SettingsProblem {
        let problem = SettingsProblem.unreadable(path: url.path, reason: reason)
        readFailure.set(problem)
        return problem
    }

    /// Writes a temporary file (mode 0600, fsynced) and renames it over the old one.
    /// Throws `SettingsProblem.unreadable` when the last load could not read the file.
    public func save(_ settings: Settings) throws {
        if let problem = readFailure.problem { throw problem }
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(settings)
        let temporary = directory.appendingPathComponent(
            ".\(url.lastPathComponent).tmp-\(DurableFile.randomHex(bytes: 6))", isDirectory: false)
        try DurableFile.replace(url, with: data, via: temporary, mode: 0o600)
    }
}

/// The "do not overwrite" flag of a settings file.
private final class SaveGuard: Sendable {
    private let state = Mutex<SettingsProblem?>(nil)

    var problem: SettingsProblem? { state.withLock { $0 } }
    func set(_ problem: SettingsProblem) { state.withLock { $0 = problem } }
    func clear() { state.withLock { $0 = nil } }
}
