import Foundation
import GtkKit

// The GLib loop owns the main thread; Swift's main actor is drained from it (see GtkKit.MainLoop).
let status = MainActor.assumeIsolated {
    TouristApplication(configuration: AppConfiguration()).run()
}
exit(status)
