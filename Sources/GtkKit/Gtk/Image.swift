internal import CShim

/// GtkImage showing a named (theme) icon.
@MainActor
public final class Image: Widget {
    public init(icon: String, pixelSize: Int32 = 16) {
        super.init(gtk_image_new_from_icon_name(icon))
        gtk_image_set_pixel_size(vt_image(raw), pixelSize)
    }
    public var iconName: String? {
        get { string(gtk_image_get_icon_name(vt_image(raw))) }
        set { gtk_image_set_from_icon_name(vt_image(raw), newValue) }
    }
}
