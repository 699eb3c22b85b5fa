import Foundation
import GtkKit
import TouristModel
import Translation
import Workers

// Before any task starts: Swift's tasks run on threads that sleep at rest (see WorkerPool).
WorkerPool.installAsGlobalExecutor()

// The locale before anything is translated or formatted: GTK would set it only when it starts,
// and strings built earlier (the window's parts) would stay in English.
setlocale(LC_ALL, "")
let configuration = AppConfiguration()
Localization.bind(to: configuration.localeDirectory)

// The GLib loop owns the main thread; Swift's main actor is drained from it (see GtkKit.MainLoop).
let status = MainActor.assumeIsolated {
    TouristApplication(configuration: configuration).run()
}
exit(status)
