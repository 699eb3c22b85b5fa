import GtkKit

/// The window's toasts: a plain message, or a failure, whose toast a newer failure rewrites
/// instead of queueing another (a failing action repeated must not stack up toasts).
@MainActor
final class WindowToasts {
    let overlay: ToastOverlay
    private var problemToast: Toast?

    init(over content: Widget) {
        overlay = ToastOverlay(child: content)
    }

    func show(_ title: String) {
        overlay.add(Toast(title))
    }

    func showProblem(_ title: String) {
        if let problemToast {
            problemToast.title = title
            return
        }
        let toast = Toast(title)
        problemToast = toast
        toast.onDismissed { [weak self, weak toast] in
            if let self, self.problemToast === toast { self.problemToast = nil }
        }
        overlay.add(toast)
    }
}
