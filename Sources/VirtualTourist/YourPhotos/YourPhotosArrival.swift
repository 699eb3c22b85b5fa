import Foundation
import GtkKit
import ImageSniffing
import TouristModel
import Translation

/// The user's own photos brought to the map (Add Your Photos…, Shift+Ctrl+O, or photos dropped
/// on the window): read and copied in off the main thread, each put first in the album of the
/// place where it was taken, offered for Undo. A photo that does not say where it was taken
/// waits for the user to pick its place on the map, one at a time. Inside Flatpak the files
/// come through the file-chooser or document portal; nothing of them leaves the computer.
@MainActor
final class YourPhotosArrival {
    private let window: ApplicationWindow
    private let pins: PinList
    private let toasts: WindowToasts
    private let undoToasts: UndoToasts
    private let navigation: WindowNavigation
    /// Photos without a position, waiting in turn for their place.
    private var waiting: [YourPhoto] = []
    private var isBusy = false

    /// What a dropped file's name says is a photo (anything else dropped is a places file).
    static let fileExtensions: Set<String> = ["jpg", "jpeg", "jpe", "png", "webp", "heic", "heif", "avif"]

    static func isPhoto(_ url: URL) -> Bool { fileExtensions.contains(url.pathExtension.lowercased()) }

    init(window: ApplicationWindow, pins: PinList, toasts: WindowToasts, undoToasts: UndoToasts,
         navigation: WindowNavigation) {
        self.window = window
        self.pins = pins
        self.toasts = toasts
        self.undoToasts = undoToasts
        self.navigation = navigation
    }

    func choose() {
        Task {
            let patterns = Self.fileExtensions.sorted().flatMap { ["*.\($0)", "*.\($0.uppercased())"] }
            let filter = (name: tr("Photos"), patterns: patterns,
                          mimeTypes: ["image/jpeg", "image/png", "image/webp", "image/heif", "image/avif"])
            let urls = await FileDialog.openMultiple(over: window, title: tr("Add Your Photos"), filter: filter)
            if !urls.isEmpty { await add(urls) }
        }
    }

    func add(_ urls: [URL]) async {
        guard !isBusy, waiting.isEmpty else {
            return toasts.showProblem(tr("Finish placing the photo the map asks about first"))
        }
        isBusy = true
        defer { isBusy = false }
        let reading: PinList.YourPhotosReading
        do {
            reading = try await pins.readYourPhotos(urls, canShow: Texture.decodableMIMETypes,
                                                    maxPixels: { ImageCheck.maxPixels(mimeType: $0) })
        } catch {
            return notAdded(error)
        }
        tellRefused(reading.refused)
        guard !reading.photos.isEmpty else { return }
        do {
            let (addition, plan) = try await pins.addYourPhotos(reading.photos)
            if let addition {
                offerUndo(addition)
                // One place: its album, where the photo now comes first.
                let places = Set(addition.added.pinIds)
                if places.count == 1, plan.unplaced.isEmpty, let id = places.first { navigation.openPin(id: id) }
            }
            waiting = plan.unplaced
        } catch {
            pins.abandonYourPhotos(reading.photos)
            return notAdded(error)
        }
        askNext()
    }

    private func tellRefused(_ messages: [String]) {
        for message in messages.prefix(3) { toasts.showProblem(message) }
        if messages.count > 3 {
            let more = messages.count - 3
            toasts.showProblem(String(format: trn("%d more photo was not added", "%d more photos were not added", more), more))
        }
    }

    private func notAdded(_ error: Error) {
        // Translators: %@ is the reason, e.g. "the disk is full".
        toasts.showProblem(String(format: tr("Photos not added: %@"), Store.reason(for: error)))
    }

    private func offerUndo(_ addition: PinList.YourPhotosAddition) {
        undoToasts.offer(addition) { count in
            // Translators: a toast after the user's own photos were put on the map.
            String(format: trn("%d of your photos added", "%d of your photos added", count), count)
        }
    }

    /// The next photo without a position: the map asks where it was taken.
    private func askNext() {
        guard let photo = waiting.first else { return }
        navigation.showMap()
        navigation.mapPage.pickPlace(forPhoto: photo.originalName, chosen: { [unowned self] place in
            Task { await self.put(photo, at: place) }
        }, cancelled: { [unowned self] in
            self.waiting.removeFirst()
            self.pins.abandonYourPhotos([photo])
            self.askNext()
        })
    }

    private func put(_ photo: YourPhoto, at place: Coordinate) async {
        waiting.removeFirst()
        do {
            let (addition, _) = try await pins.addYourPhotos([photo], at: place)
            if let addition { offerUndo(addition) }
        } catch {
            pins.abandonYourPhotos([photo])
            notAdded(error)
        }
        askNext()
    }
}
