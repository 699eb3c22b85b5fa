internal import CShim

/// The clipboard of a widget's display.
@MainActor
public enum Clipboard {
    /// Offers `texture` to other apps (GDK converts it to PNG or TIFF for whoever pastes).
    public static func copy(_ texture: Texture, from widget: Widget) {
        gdk_clipboard_set_texture(gtk_widget_get_clipboard(widget.widget), texture.pointer)
    }
}
