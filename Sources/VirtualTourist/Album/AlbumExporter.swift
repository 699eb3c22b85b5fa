import Foundation
import Synchronization
import GtkKit
import TouristModel
import Translation

/// "Export Album…": asks for a folder (the file chooser portal inside Flatpak), then writes the
/// album there off the main thread (`AlbumExport`), with a toast that counts the photos and
/// can cancel, and one that says where the album went or why it could not be written.
@MainActor
final class AlbumExporter {
    private let window: ApplicationWindow
    private let toasts: ToastOverlay
    private let showProblem: (String) -> Void
    /// A photo's large version (`LargePhotos`): the album keeps copies the size of its cells,
    /// an exported album should have the photos themselves.
    private let large: @MainActor (Photo) async -> URL?
    private var running: Task<Void, Never>?
    /// Set on the main thread, read by the writing thread between photos.
    private let cancelled = Cancellation()

    init(window: ApplicationWindow, toasts: ToastOverlay, showProblem: @escaping (String) -> Void,
         large: @escaping @MainActor (Photo) async -> URL?) {
        self.window = window
        self.toasts = toasts
        self.showProblem = showProblem
        self.large = large
    }

    /// The album's downloaded photos, as they are now, to a folder the user chooses.
    func export(pin: Pin, photos: [Photo], fileURL: (Photo) -> URL?) {
        guard running == nil else { return }
        let stored = photos.compactMap { photo in fileURL(photo).map { (photo: photo, file: $0) } }
        guard !stored.isEmpty else { return showProblem(tr("The album has no photos to export yet")) }
        // Translators: the exported album's folder name; %@ is the place's name, or the pin's
        // latitude and longitude.
        let name = String(format: tr("Album at %@"), pin.title)
        running = Task { [weak self] in
            guard let self else { return }
            defer { self.running = nil }
            guard let folder = await FileDialog.selectFolder(over: self.window, title: tr("Export Album"),
                                                             acceptLabel: tr("_Export")) else { return }
            guard let items = await self.items(stored) else { return }
            await self.write(AlbumExport(name: name, pin: pin.coordinate, items: items), into: folder)
        }
    }

    /// Each photo's large version where it can be had (the album's copy where not: offline,
    /// or a failure), counted in a toast that can cancel; nil when cancelled.
    private func items(_ stored: [(photo: Photo, file: URL)]) async -> [AlbumExport.Item]? {
        cancelled.isSet = false
        let toast = Toast(fetchingText(done: 0, total: stored.count), timeout: 0)
        toast.setButton(tr("Cancel")) { [cancelled] in cancelled.isSet = true }
        toasts.add(toast)
        defer { toast.dismiss() }
        var items: [AlbumExport.Item] = []
        for (index, entry) in stored.enumerated() {
            if cancelled.isSet { return nil }
            let file = await large(entry.photo) ?? entry.file
            items.append(AlbumExport.Item(title: entry.photo.title, author: entry.photo.author, license: entry.photo.license,
                                          pageURL: entry.photo.pageURL, file: file, coordinate: entry.photo.coordinate))
            toast.title = fetchingText(done: index + 1, total: stored.count)
        }
        return cancelled.isSet ? nil : items
    }

    private func write(_ export: AlbumExport, into folder: URL) async {
        cancelled.isSet = false
        let toast = Toast(progressText(done: 0, total: export.items.count), timeout: 0)
        toast.setButton(tr("Cancel")) { [cancelled] in cancelled.isSet = true }
        toasts.add(toast)
        let progress = ProgressRelay { [weak self] done, total in
            guard let self else { return }
            toast.title = self.progressText(done: done, total: total)
        }
        let cancelled = self.cancelled
        let result = await Task.detached(priority: .userInitiated) { () -> Result<URL, AlbumExport.Failure> in
            do {
                return .success(try export.write(into: folder, progress: progress.send, isCancelled: { cancelled.isSet }))
            } catch let failure as AlbumExport.Failure {
                return .failure(failure)
            } catch {
                return .failure(.notWritten(error.localizedDescription))
            }
        }.value
        toast.dismiss()
        switch result {
        case .success(let written):
            // Translators: after Export Album…; %@ is the folder's name.
            toasts.add(Toast(String(format: tr("Album exported to “%@”"), written.lastPathComponent)))
        case .failure(.cancelled):
            break
        case .failure(.notWritten(let reason)):
            // Translators: %@ is the file system's reason (no space left, read-only…).
            showProblem(String(format: tr("The album could not be exported: %@"), reason))
        }
    }

    private func fetchingText(done: Int, total: Int) -> String {
        // Translators: while Export Album… gets each photo's full size; the numbers are photos
        // done and in all.
        String(format: tr("Getting photos: %@ of %@"), Localization.count(done), Localization.count(total))
    }

    private func progressText(done: Int, total: Int) -> String {
        // Translators: while Export Album… writes; the numbers are photos written and in all.
        String(format: tr("Exporting photos: %@ of %@"), Localization.count(done), Localization.count(total))
    }
}

/// The user's Cancel, shared with the writing thread.
private final class Cancellation: Sendable {
    private let flag = Mutex(false)
    var isSet: Bool {
        get { flag.withLock { $0 } }
        set { flag.withLock { $0 = newValue } }
    }
}

/// Progress from the writing thread, shown on the main thread.
private struct ProgressRelay: Sendable {
    let show: @MainActor @Sendable (Int, Int) -> Void
    init(_ show: @escaping @MainActor @Sendable (Int, Int) -> Void) { self.show = show }
    func send(_ done: Int, _ total: Int) {
        Task { @MainActor in show(done, total) }
    }
}
