@MainActor
public final class Picture: Widget {
    public init(fit: GtkContentFit = GTK_CONTENT_FIT_COVER) {
        super.init(gtk_picture_new())
        gtk_picture_set_content_fit(vt_picture(raw), fit)
        gtk_picture_set_can_shrink(vt_picture(raw), true.g)
    }
    public func setTexture(_ texture: Texture?) {
        gtk_picture_set_paintable(vt_picture(raw), texture.map { vt_paintable(UnsafeMutableRawPointer($0.pointer)) })
    }
}
