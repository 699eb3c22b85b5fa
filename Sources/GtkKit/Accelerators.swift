extension Application {
    /// The keys that activate `action` ("win.undo"), any number of them.
    public func setAccels(_ action: String, _ accels: [String]) {
        // GTK wants a NULL-terminated array of C strings.
        var strings: [UnsafePointer<gchar>?] = accels.map { UnsafePointer(g_strdup($0)) }
        strings.append(nil)
        defer { for string in strings { g_free(UnsafeMutableRawPointer(mutating: string)) } }
        gtk_application_set_accels_for_action(gtkApplication, action, &strings)
    }
}
