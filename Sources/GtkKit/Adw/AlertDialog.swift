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
        adw_alert_dialog_add_response(alert, "cancel", tr("_Cancel"))
        adw_alert_dialog_add_response(alert, "confirm", confirm)
        adw_alert_dialog_set_response_appearance(alert, "confirm", ADW_RESPONSE_SUGGESTED)
        adw_alert_dialog_set_default_response(alert, "confirm")
        adw_alert_dialog_set_close_response(alert, "cancel")
        // The entry is the dialog's child, alive for as long as the dialog can respond.
        Signal.connect(UnsafeMutableRawPointer(dialog!), "response", pointer: { response in
            guard let response, String(cString: response.assumingMemoryBound(to: CChar.self)) == "confirm" else { return }
            onConfirm(string(gtk_editable_get_text(vt_editable(entry))) ?? "")
        })
        adw_dialog_present(vt_adw_dialog(UnsafeMutableRawPointer(dialog)), parent.widget)
        gtk_widget_grab_focus(entry)
    }
}
