/// Opens a web page in the user's browser (through the portal inside Flatpak).
@MainActor
public enum URILauncher {
    public static func launch(_ uri: String, from window: ApplicationWindow) { vt_launch_uri(window.window, uri) }
}
