internal import CShim

extension Application {
    /// The keys that activate `action` ("win.undo"), any number of them.
    public func setAccels(_ action: String, _ accels: [String]) {
        withNullTerminatedCStrings(accels) { gtk_application_set_accels_for_action(gtkApplication, action, $0) }
    }
}
