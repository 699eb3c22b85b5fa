import Foundation
import GtkKit
import TouristModel
import Translation

/// The one line over an album whose photos wait instead of failing: offline, or a host that
/// asked the app to slow down ("Wikimedia asks us to slow down; the photos continue in 40 s"),
/// its time counted down while it shows.
@MainActor
final class AlbumBanner {
    private static let offline = tr("Offline — the photos will download when you are back online")
    let banner = Banner(title: AlbumBanner.offline)
    private var pause: HostPauses.Pause?
    private var countdown: UInt32 = 0

    /// Offline wins: nothing goes on until the network is back, whatever a host asked.
    func show(offline: Bool, pause: HostPauses.Pause?) {
        let pause = offline ? nil : pause
        let changed = pause != self.pause
        self.pause = pause
        if offline {
            setTitle(Self.offline)
        } else if let pause {
            setTitle(pause.message())
        }
        banner.isRevealed = offline || pause != nil
        if changed { schedule() }
    }

    /// Stops the countdown for good (the page is closed).
    func stop() {
        pause = nil
        schedule()
    }

    /// The next change of the time shown: when the seconds left pass a whole second.
    private func schedule() {
        MainLoop.remove(source: countdown)
        countdown = 0
        // Once over, "1 s" stays until the loader says the photos go on (a moment later).
        guard let pause, pause.until > .now else { return }
        let milliseconds = (pause.until - .now).components.attoseconds / 1_000_000_000_000_000
        countdown = MainLoop.timeout(milliseconds: UInt32(milliseconds) + 5) { [weak self] in
            guard let self else { return false }
            self.countdown = 0
            if let pause = self.pause {
                self.setTitle(pause.message())
                self.schedule()
            }
            return false
        }
    }

    /// A label's new text lays out the window: only when it changes.
    private func setTitle(_ text: String) {
        if banner.title != text { banner.title = text }
    }
}
