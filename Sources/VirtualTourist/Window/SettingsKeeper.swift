import TouristModel
import Translation

/// The user's settings and the one way to change them: each change is saved at once. Pages get
/// this, not the application.
@MainActor
final class SettingsKeeper {
    private let file: SettingsFile
    private(set) var current: Settings
    /// A save failed; the text names the reason, for the user.
    var onSaveFailure: ((String) -> Void)?
    /// A failed save is told once: every map move would otherwise log and toast again.
    private var saveFailureReported = false

    init(file: SettingsFile, settings: Settings) {
        self.file = file
        current = settings
    }

    func update(_ change: (inout Settings) -> Void) {
        var copy = current
        change(&copy)
        guard copy != current else { return }
        current = copy
        do {
            try file.save(current)
            saveFailureReported = false
        } catch is SettingsProblem {
            // The file could not be read: the start-up message said changes are not saved over it.
        } catch {
            guard !saveFailureReported else { return }
            saveFailureReported = true
            Log.error("Could not save settings: \(error.localizedDescription)")
            // Translators: %@ is the reason, e.g. "the disk is full".
            onSaveFailure?(String(format: tr("Settings not saved: %@"), Store.reason(for: error)))
        }
    }
}
