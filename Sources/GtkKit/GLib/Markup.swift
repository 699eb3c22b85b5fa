internal import CShim

/// Plain text as Pango markup that shows it as written, for widgets that always parse markup
/// (AdwStatusPage's description, AdwPreferencesGroup's labels): outside text such as a server's
/// error message must not be taken for tags, or make the markup invalid and show nothing.
package func markupEscaped(_ text: String) -> String {
    takeString(g_markup_escape_text(text, -1)) ?? ""
}
