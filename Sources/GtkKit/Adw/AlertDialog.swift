internal import CShim
import Translation

/// AdwAlertDialog, centred over the window on a desktop, a bottom sheet on a narrow window.
/// Heading and body are plain text (markup is off by default, and stays off: bodies carry file
/// paths, error reasons and names from the network).
@MainActor
public enum AlertDialog {
    public static func show(over parent: Widget, heading: String, body: String) {
        let dialog = adw_alert_dialog_new(heading, body)
        let alert = vt_adw_alert_dialog(UnsafeMutableRawPointer(dialog))
        adw_alert_dialog_add_response(alert, "close", tr("_Close"))
        adw_alert_dialog_set_default_response(alert, "close")
        adw_alert_dialog_set_close_response(alert, "close")
        adw_dialog_present(vt_adw_dialog(UnsafeMutableRawPointer(dialog)), parent.widget)
    }

    /// Asks for a line of text: an entry holding `text` (selected, so typing replaces it),
    /// Cancel, and `confirm`, which Enter chooses too; `onConfirm` gets what the entry holds.
    public static func askText(over parent: Widget, heading: String, body: String, text: String,
                               confirm: String, onConfirm: @escaping @MainActor (String) -> Void) {
        let dialog = adw_alert_dialog_new(heading, body)
        let alert = vt_adw_alert_dialog(UnsafeMutableRawPointer(dialog))
        let entry = gtk_entry_new()!
        gtk_editable_set_text(vt_editable(entry), text)
        gtk_entry_set_activates_default(vt_entry(entry), true.g)
        vt_accessible_set_label(entry, heading)
        adw_alert_dialog_set_extra_child(alert, entry)
        // The entry is the dialog's child, alive for as long as the dialog can respond.
        present(dialog, over: parent, confirm: confirm) {
            onConfirm(string(gtk_editable_get_text(vt_editable(entry))) ?? "")
        }
        gtk_widget_grab_focus(entry)
    }

    /// Asks to confirm: `body`, then `details` (lines of plain text, scrolled when long), Cancel
    /// and `confirm`, the default; `onConfirm` runs only when chosen.
    public static func confirm(over parent: Widget, heading: String, body: String, details: String,
                               detailsLabel: String, confirm: String, onConfirm: @escaping Handler) {
        let dialog = adw_alert_dialog_new(heading, body)
        let alert = vt_adw_alert_dialog(UnsafeMutableRawPointer(dialog))
        if !details.isEmpty {
            let label = gtk_label_new(details)!
            gtk_label_set_wrap(vt_label(label), true.g)
            gtk_label_set_xalign(vt_label(label), 0)
            gtk_widget_set_focusable(label, true.g)
            gtk_widget_set_margin_start(label, 12)
            gtk_widget_set_margin_end(label, 12)
            gtk_widget_set_margin_top(label, 8)
            gtk_widget_set_margin_bottom(label, 8)
            vt_accessible_set_label(label, detailsLabel)
            let scrolled = gtk_scrolled_window_new()!
            gtk_scrolled_window_set_policy(vt_scrolled_window(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
            gtk_scrolled_window_set_propagate_natural_height(vt_scrolled_window(scrolled), true.g)
            gtk_scrolled_window_set_max_content_height(vt_scrolled_window(scrolled), 160)
            gtk_scrolled_window_set_child(vt_scrolled_window(scrolled), label)
            gtk_widget_add_css_class(scrolled, "card")
            adw_alert_dialog_set_extra_child(alert, scrolled)
        }
        present(dialog, over: parent, confirm: confirm, onConfirm: onConfirm)
    }

    /// Cancel (Esc), and `confirm`, suggested and chosen by Enter; `onConfirm` runs only for it.
    private static func present(_ dialog: UnsafeMutablePointer<AdwDialog>?, over parent: Widget, confirm: String,
                                onConfirm: @escaping Handler) {
        let alert = vt_adw_alert_dialog(UnsafeMutableRawPointer(dialog))
        adw_alert_dialog_add_response(alert, "cancel", tr("_Cancel"))
        adw_alert_dialog_add_response(alert, "confirm", confirm)
        adw_alert_dialog_set_response_appearance(alert, "confirm", ADW_RESPONSE_SUGGESTED)
        adw_alert_dialog_set_default_response(alert, "confirm")
        adw_alert_dialog_set_close_response(alert, "cancel")
        Signal.connect(UnsafeMutableRawPointer(dialog!), "response", pointer: { response in
            guard let response, String(cString: response.assumingMemoryBound(to: CChar.self)) == "confirm" else { return }
            onConfirm()
        })
        adw_dialog_present(vt_adw_dialog(UnsafeMutableRawPointer(dialog)), parent.widget)
    }
}
