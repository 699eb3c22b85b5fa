internal import CShim
import Foundation

/// GtkDropTarget for files dragged from a file manager (or, inside Flatpak, through the
/// document portal, which hands over paths the sandbox may read).
@MainActor
public final class FileDropTarget: EventController {
    public init() {
        super.init(gtk_drop_target_new(gdk_file_list_get_type(), GdkDragAction(rawValue: 1)))  // GDK_ACTION_COPY
    }

    /// The dropped files' paths; return true when they were taken.
    @discardableResult
    public func onDrop(_ handler: @escaping FilesHandler) -> HandlerID {
        Signal.connect(raw, "drop", files: handler)
    }
}
