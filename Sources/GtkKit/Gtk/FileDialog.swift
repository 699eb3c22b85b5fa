internal import CShim
import Foundation

/// GtkFileDialog's "open", "save" and "select folder" questions. Inside Flatpak GTK asks the file-chooser portal, so the app
/// writes where the user chose without any filesystem permission.
@MainActor
public enum FileDialog {
    /// The file the user chose to save to, or nil when they cancelled (or no chooser could be shown).
    public static func save(over window: ApplicationWindow, title: String, initialName: String,
                            initialFolder: String?) async -> URL? {
        let dialog = gtk_file_dialog_new()!
        defer { g_object_unref(UnsafeMutableRawPointer(dialog)) }
        gtk_file_dialog_set_title(dialog, title)
        gtk_file_dialog_set_initial_name(dialog, initialName)
        gtk_file_dialog_set_modal(dialog, true.g)
        if let initialFolder, let folder = g_file_new_for_path(initialFolder) {
            gtk_file_dialog_set_initial_folder(dialog, folder)
            g_object_unref(UnsafeMutableRawPointer(folder))
        }
        return await answer { gtk_file_dialog_save(dialog, window.window, nil, $0, $1) } finish: {
            gtk_file_dialog_save_finish($0, $1, $2)
        }
    }

    /// The file the user chose to open, among the files `filter` names (its name, and its
    /// patterns such as "*.gpx" and MIME types), or nil when they cancelled.
    public static func open(over window: ApplicationWindow, title: String,
                            filter: (name: String, patterns: [String], mimeTypes: [String])) async -> URL? {
        let dialog = openDialog(title: title, filter: filter)
        defer { g_object_unref(UnsafeMutableRawPointer(dialog)) }
        return await answer { gtk_file_dialog_open(dialog, window.window, nil, $0, $1) } finish: {
            gtk_file_dialog_open_finish($0, $1, $2)
        }
    }

    /// The files the user chose to open (several may be), among those `filter` names; empty
    /// when they cancelled.
    public static func openMultiple(over window: ApplicationWindow, title: String,
                                    filter: (name: String, patterns: [String], mimeTypes: [String])) async -> [URL] {
        let dialog = openDialog(title: title, filter: filter)
        defer { g_object_unref(UnsafeMutableRawPointer(dialog)) }
        return await withCheckedContinuation { (continuation: CheckedContinuation<[URL], Never>) in
            let box = Unmanaged.passRetained(ManyReply(continuation)).toOpaque()
            gtk_file_dialog_open_multiple(dialog, window.window, nil, { source, result, data in
                let reply = Unmanaged<ManyReply>.fromOpaque(data!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let files = gtk_file_dialog_open_multiple_finish(vt_file_dialog(source), result, &error)
                if let error { g_error_free(error) }  // dismissed or cancelled
                var urls: [URL] = []
                if let files {
                    for index in 0..<g_list_model_get_n_items(files) {
                        guard let file = g_list_model_get_item(files, index) else { continue }
                        if let url = chosenPath(OpaquePointer(file), nil) { urls.append(url) }
                    }
                    g_object_unref(UnsafeMutableRawPointer(files))
                }
                reply.continuation.resume(returning: urls)
            }, box)
        }
    }

    private static func openDialog(title: String,
                                   filter: (name: String, patterns: [String], mimeTypes: [String])) -> OpaquePointer {
        let dialog = gtk_file_dialog_new()!
        gtk_file_dialog_set_title(dialog, title)
        gtk_file_dialog_set_modal(dialog, true.g)
        let fileFilter = gtk_file_filter_new()!
        gtk_file_filter_set_name(fileFilter, filter.name)
        for pattern in filter.patterns { gtk_file_filter_add_pattern(fileFilter, pattern) }
        for type in filter.mimeTypes { gtk_file_filter_add_mime_type(fileFilter, type) }
        let filters = g_list_store_new(gtk_file_filter_get_type())!
        g_list_store_append(filters, UnsafeMutableRawPointer(fileFilter))
        gtk_file_dialog_set_filters(dialog, vt_list_model(UnsafeMutableRawPointer(filters)))
        gtk_file_dialog_set_default_filter(dialog, fileFilter)
        g_object_unref(UnsafeMutableRawPointer(fileFilter))
        g_object_unref(UnsafeMutableRawPointer(filters))
        return dialog
    }

    /// The folder the user chose (to write into), or nil when they cancelled.
    public static func selectFolder(over window: ApplicationWindow, title: String, acceptLabel: String) async -> URL? {
        let dialog = gtk_file_dialog_new()!
        defer { g_object_unref(UnsafeMutableRawPointer(dialog)) }
        gtk_file_dialog_set_title(dialog, title)
        gtk_file_dialog_set_accept_label(dialog, acceptLabel)
        gtk_file_dialog_set_modal(dialog, true.g)
        return await answer { gtk_file_dialog_select_folder(dialog, window.window, nil, $0, $1) } finish: {
            gtk_file_dialog_select_folder_finish($0, $1, $2)
        }
    }

    /// One question: `ask` starts it with GIO's callback and its data; `finish` is the question's
    /// own _finish function, called in the callback (a C function cannot capture which one).
    private static func answer(_ ask: (GAsyncReadyCallback, gpointer) -> Void, finish: @escaping Finish) async -> URL? {
        await withCheckedContinuation { (continuation: CheckedContinuation<URL?, Never>) in
            let box = Unmanaged.passRetained(Reply(continuation, finish: finish)).toOpaque()
            ask({ source, result, data in
                let reply = Unmanaged<Reply>.fromOpaque(data!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let file = reply.finish(vt_file_dialog(source), result, &error)
                reply.continuation.resume(returning: chosenPath(file, error))
            }, box)
        }
    }
}

private typealias Finish = (OpaquePointer?, OpaquePointer?,
                            UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> OpaquePointer?

/// A dialog's answer as a local path, taking ownership of both (a free function: the C
/// callbacks above cannot capture their type).
private func chosenPath(_ file: OpaquePointer?, _ error: UnsafeMutablePointer<GError>?) -> URL? {
    if let error { g_error_free(error) }  // dismissed or cancelled: not a failure to report
    guard let file else { return nil }
    defer { g_object_unref(UnsafeMutableRawPointer(file)) }
    guard let path = g_file_get_path(file) else { return nil }
    defer { g_free(path) }
    return URL(fileURLWithPath: String(cString: path))
}

private final class Reply {
    let continuation: CheckedContinuation<URL?, Never>
    let finish: Finish
    init(_ continuation: CheckedContinuation<URL?, Never>, finish: @escaping Finish) {
        self.continuation = continuation
        self.finish = finish
    }
}

private final class ManyReply {
    let continuation: CheckedContinuation<[URL], Never>
    init(_ continuation: CheckedContinuation<[URL], Never>) { self.continuation = continuation }
}
