/// Application CSS: the pin marker and the cards drawn over the map.
enum AppStyle {
    static let css = """
    button.pin {
        padding: 0;
        min-width: 0;
        min-height: 0;
        background: none;
        box-shadow: none;
        color: #e01b24;
        -gtk-icon-shadow: 0 1px 2px rgba(0, 0, 0, 0.6);
    }
    button.pin:hover { color: #ff3b42; }
    button.pin:focus-visible { outline: 2px solid @accent_color; outline-offset: 1px; }
    button.pin.deletable { color: #9a9996; }
    .map-card {
        background-color: @popover_bg_color;
        color: @popover_fg_color;
        border-radius: 12px;
        padding: 12px 16px;
        box-shadow: 0 2px 8px rgba(0, 0, 0, 0.3);
    }
    .edit-banner {
        background-color: @accent_bg_color;
        color: @accent_fg_color;
        padding: 8px;
        font-weight: bold;
    }
    """
}
