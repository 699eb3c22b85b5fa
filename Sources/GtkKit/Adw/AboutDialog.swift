internal import CShim

/// AdwAboutDialog.
@MainActor
public struct AboutDialog {
    private let dialog: OpaquePointer

    public init(name: String, icon: String, version: String, developer: String, comments: String,
                website: String, issueURL: String, copyright: String, license: License) {
        dialog = vt_adw_about_dialog(UnsafeMutableRawPointer(adw_about_dialog_new()))
        adw_about_dialog_set_application_name(dialog, name)
        adw_about_dialog_set_application_icon(dialog, icon)
        adw_about_dialog_set_version(dialog, version)
        adw_about_dialog_set_developer_name(dialog, developer)
        adw_about_dialog_set_comments(dialog, comments)
        adw_about_dialog_set_website(dialog, website)
        adw_about_dialog_set_issue_url(dialog, issueURL)
        adw_about_dialog_set_copyright(dialog, copyright)
        adw_about_dialog_set_license_type(dialog, license.gtk)
    }

    /// `text` may hold Pango markup links.
    public func addLegalSection(title: String, copyright: String?, text: String) {
        adw_about_dialog_add_legal_section(dialog, title, copyright, GTK_LICENSE_CUSTOM, text)
    }

    /// The dialog is floating until presented; presenting hands it to the window.
    public func present(over parent: Widget) {
        adw_dialog_present(vt_adw_dialog(UnsafeMutableRawPointer(dialog)), parent.widget)
    }
}

extension AboutDialog {
    /// The app's licence, which the dialog names and links to (GtkLicense has a few dozen).
    public enum License: Sendable {
        case gpl3OrLater

        var gtk: GtkLicense {
            switch self {
            case .gpl3OrLater: GTK_LICENSE_GPL_3_0
            }
        }
    }
}
