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
        /* No shadow: the cairo renderer draws it again on every frame, for every pin. */
    }
    button.pin:hover { color: #ff3b42; }
    button.pin:focus-visible { outline: 2px solid @accent_color; outline-offset: 1px; }
    button.pin.deletable { color: #9a9996; }
    button.pin-group {
        min-width: 34px;
        min-height: 34px;
        padding: 0 4px;
        border-radius: 999px;
        background-color: #e01b24;
        color: white;
        font-weight: bold;
        border: 3px solid rgba(255, 255, 255, 0.85);
    }
    button.pin-group:hover { background-color: #ff3b42; }
    button.pin-group:focus-visible { outline: 2px solid @accent_color; outline-offset: 3px; }
    .photo-cell.loading image, .photo-cell.failed image { opacity: 0.45; }
    .photo-cell.loading { background-color: alpha(currentColor, 0.06); }
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
