import GtkKit
import TouristModel
import Translation

/// Something removed at once on screen but only for good when its "… — Undo" toast goes away:
/// the toast's button (or Ctrl+Z) calls `undo`, its dismissal `commit`; exactly one of them runs.
@MainActor
final class UndoableRemoval {
    let toast: Toast
    private(set) var isFinished = false
    private let undoAction: () -> Void
    private let commitAction: () -> Void

    fileprivate init(title: String, undo: @escaping () -> Void, commit: @escaping () -> Void) {
        toast = Toast(title)
        undoAction = undo
        commitAction = commit
        // Weak: the toast can outlive its removal (quitting commits every removal while their
        // toasts are still on screen, and the window dismisses them as it goes).
        toast.setButton(tr("Undo")) { [weak self] in self?.undo() }
        toast.onDismissed { [weak self] in self?.commit() }
    }

    /// The toast's text, for a removal that grows ("3 pins deleted").
    var title: String {
        get { toast.title }
        set { toast.title = newValue }
    }

    /// The toast's button, or Ctrl+Z: the toast goes too.
    func undo() {
        guard !isFinished else { return }
        isFinished = true
        undoAction()
        toast.dismiss()
    }

    func commit() {
        guard !isFinished else { return }
        isFinished = true
        commitAction()
    }
}

/// The window's Undo toasts, for pins and photos alike. Ctrl+Z (win.undo) undoes the newest one,
/// since a toast's button is not in the window's Tab order; quitting commits all of them.
@MainActor
final class UndoToasts {
    private let overlay: ToastOverlay
    private var open: [UndoableRemoval] = []

    init(overlay: ToastOverlay) { self.overlay = overlay }

    /// The newest removal still offering Undo.
    var latest: UndoableRemoval? { open.last { !$0.isFinished } }

    @discardableResult
    func offer(title: String, undo: @escaping () -> Void, commit: @escaping () -> Void) -> UndoableRemoval {
        let removal = UndoableRemoval(title: title, undo: undo, commit: commit)
        open.removeAll(where: \.isFinished)
        open.append(removal)
        overlay.add(removal.toast)
        return removal
    }

    func undoLatest() { latest?.undo() }

    /// Last chance to make the removals the user did not undo final.
    func commitAll() {
        for removal in open { removal.commit() }
        open.removeAll()
    }
}
