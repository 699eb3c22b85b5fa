internal import CShim

/// GtkPicture showing a texture, scaled to the space it is given.
@MainActor
public final class Picture: Widget {
    public init(fit: ContentFit = .cover) {
        super.init(gtk_picture_new())
        gtk_picture_set_content_fit(vt_picture(raw), fit.gtk)
        gtk_picture_set_can_shrink(vt_picture(raw), true.g)
    }
    public func setTexture(_ texture: Texture?) {
        gtk_picture_set_paintable(vt_picture(raw), texture.map { vt_paintable(UnsafeMutableRawPointer($0.pointer)) })
    }
    /// Shows nothing, as if it held a `width`×`height` px texture: a change between this and a
    /// texture of that size only redraws the picture (from or to no paintable, the window lays
    /// out again).
    public func setBlank(width: Int32, height: Int32) {
        let blank = gdk_paintable_new_empty(width, height)
        gtk_picture_set_paintable(vt_picture(raw), blank)
        g_object_unref(UnsafeMutableRawPointer(blank))
    }
}

/// How a picture fills its space: `fill` stretches, `contain` fits it whole, `cover` fills it
/// cropping the overflow, `scaleDown` is `contain` without enlarging.
public enum ContentFit: Sendable {
    case fill, contain, cover, scaleDown

    var gtk: GtkContentFit {
        switch self {
        case .fill: GTK_CONTENT_FIT_FILL
        case .contain: GTK_CONTENT_FIT_CONTAIN
        case .cover: GTK_CONTENT_FIT_COVER
        case .scaleDown: GTK_CONTENT_FIT_SCALE_DOWN
        }
    }
}
