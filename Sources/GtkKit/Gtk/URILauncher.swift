internal import CShim

/// Opens a web page in the user's browser (through the portal inside Flatpak).
@MainActor
public enum URILauncher {
    public static func launch(_ uri: String, from window: ApplicationWindow) {
        let launcher = gtk_uri_launcher_new(uri)
        // Nobody waits for the answer (GTK logs a failure); the launch keeps its own reference.
        gtk_uri_launcher_launch(launcher, window.window, nil, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(launcher))
    }
}
