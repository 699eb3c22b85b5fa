import CIntl
import Foundation

/// gettext for every user-visible string, model and UI alike. A module of its own below every
/// layer, as the model's error messages and GtkKit's few strings reach the user too (libc only).
/// The app binds the domain to its catalogue folder at start-up with `Localization.bind(to:)`.
public enum Localization {
    /// The gettext domain: the catalogues are `<localedir>/<lang>/LC_MESSAGES/virtual-tourist.mo`.
    public static let domain = "virtual-tourist"

    /// The process's default domain: libadwaita's. The app names its own domain in every lookup
    /// (`tr`, `trn`; it has no GtkBuilder files), but some of libadwaita's strings are looked up
    /// without one (glib/gi18n.h's `_()`, i.e. gettext(), in its dialogs' close button, "Close",
    /// and its toasts' announcements; 1.6 to 1.10 alike): with the app's domain as the default
    /// they were looked up in the app's catalogue and stayed English although libadwaita's has
    /// them ("Schließen"). libshumate's map scale does the same ("%d km"), which no default can
    /// serve as well; its units read alike in most languages.
    public static let defaultDomain = "libadwaita"

    /// Looks up the domain's catalogues under `localeDirectory`, read as UTF-8 whatever the locale,
    /// and makes libadwaita's the default domain (see `defaultDomain`).
    public static func bind(to localeDirectory: String) {
        bindtextdomain(domain, localeDirectory)
        bind_textdomain_codeset(domain, "UTF-8")
        // libadwaita binds its own domain to its folder when it starts (adw_init).
        textdomain(defaultDomain)
    }
}

/// The translation of `message` (xgettext keyword `tr`).
public func tr(_ message: String) -> String {
    // Without a translation gettext returns its argument: the temporary C copy of `message`,
    // which must not be read once the call has returned, so compare it inside the closure.
    message.withCString { msgid in
        guard let translated = dgettext(Localization.domain, msgid), translated != UnsafeMutablePointer(mutating: msgid)
        else { return message }
        return String(cString: translated)
    }
}

/// The singular or plural translation for `count` (xgettext keyword `trn:1,2`); the result is a
/// format string that still holds its `%d`/`%@` placeholders.
public func trn(_ singular: String, _ plural: String, _ count: Int) -> String {
    let n = UInt(clamping: count)
    return singular.withCString { one in
        plural.withCString { many in
            guard let translated = dngettext(Localization.domain, one, many, n),
                  translated != UnsafeMutablePointer(mutating: one), translated != UnsafeMutablePointer(mutating: many)
            else { return count == 1 ? singular : plural }
            return String(cString: translated)
        }
    }
}
