import CIntl
import Foundation

/// gettext for every user-visible string, model and UI alike. The model's error messages reach
/// the user too, so the lookup lives here (libc only, no GTK). The app binds the domain to its
/// catalogue folder at start-up with `Localization.bind(to:)`.
public enum Localization {
    /// The gettext domain: the catalogues are `<localedir>/<lang>/LC_MESSAGES/virtual-tourist.mo`.
    public static let domain = "virtual-tourist"

    /// Looks up the domain's catalogues under `localeDirectory`, read as UTF-8 whatever the locale.
    public static func bind(to localeDirectory: String) {
        bindtextdomain(domain, localeDirectory)
        bind_textdomain_codeset(domain, "UTF-8")
    }
}

/// The translation of `message` (xgettext keyword `tr`).
public func tr(_ message: String) -> String {
    // Untranslated, gettext returns the pointer it was given: copy while that buffer still lives.
    message.withCString { original in
        String(cString: dgettext(Localization.domain, original))
    }
}

/// The singular or plural translation for `count` (xgettext keyword `trn:1,2`); the result is a
/// format string that still holds its `%d`/`%@` placeholders.
public func trn(_ singular: String, _ plural: String, _ count: Int) -> String {
    singular.withCString { one in
        plural.withCString { many in
            String(cString: dngettext(Localization.domain, one, many, UInt(clamping: count)))
        }
    }
}
