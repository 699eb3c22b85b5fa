import GtkKit
import TouristModel
import Translation

/// The window's "… — Undo" toasts, for every `UndoableChange` (pins deleted, a photo removed, a
/// place renamed): the toast's button (or Ctrl+Z, win.undo, since a toast's button is not in the
/// window's Tab order) undoes the change, its dismissal commits it; quitting commits them all.
@MainActor
final class UndoToasts {
    private let overlay: ToastOverlay
    private var open: [Offer] = []

    /// One change on offer, with its toast.
    @MainActor
    private final class Offer {
        let change: UndoableChange
        let toast: Toast
        private(set) var isFinished = false

        init(_ change: UndoableChange, title: @escaping (Int) -> String) {
            self.change = change
            toast = Toast(title(change.count))
            // Weak: the toast can outlive its offer (quitting commits every change while their
            // toasts are still on screen, and the window dismisses them as it goes).
            toast.setButton(tr("Undo")) { [weak self] in self?.undo() }
            toast.onDismissed { [weak self] in self?.commit() }
            change.onGrow = { [weak self, weak change] in
                guard let self, let change else { return }
                self.toast.title = title(change.count)
            }
        }

        /// The toast's button, or Ctrl+Z: the toast goes too.
        func undo() {
            guard !isFinished else { return }
            isFinished = true
            change.undo()
            toast.dismiss()
        }

        func commit() {
            guard !isFinished else { return }
            isFinished = true
            change.commit()
        }
    }

    init(overlay: ToastOverlay) { self.overlay = overlay }

    /// Offers Undo for `change`, its toast saying `title(change.count)` (again when it grows).
    func offer(_ change: UndoableChange, title: @escaping (Int) -> String) {
        let offer = Offer(change, title: title)
        open.removeAll(where: \.isFinished)
        open.append(offer)
        overlay.add(offer.toast)
    }

    /// Ctrl+Z: the newest change still on offer.
    func undoLatest() { open.last { !$0.isFinished }?.undo() }

    /// Last chance to make the changes the user did not undo final.
    func commitAll() {
        for offer in open { offer.commit() }
        open.removeAll()
    }
}
