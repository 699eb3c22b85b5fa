internal import CShim
import Translation

/// AdwAlertDialog with one "close" response, centred over the window on a desktop, a bottom sheet
/// on a narrow window. Heading and body are plain text (markup is off by
/// default, and stays off: bodies carry file paths and error reasons).
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
}
