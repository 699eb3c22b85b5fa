package import CShim

/// AdwApplication: the app's process-wide object, its actions and their keys.
@MainActor
public final class Application: Object {
    /// Registers the app's compiled-in resources first: at start-up libadwaita loads the
    /// application's `style.css` from its resource path (derived from `id`).
    /// Default flags as a raw value: GLib 2.86+ imports its flag enums as option sets, with no
    /// global constants, and the raw initialiser compiles on both sides of that change.
    public init(id: String) {
        vt_resources_register_resource()
        super.init(taking: adw_application_new(id, GApplicationFlags(rawValue: 0)))
    }
    package var gtkApplication: UnsafeMutablePointer<GtkApplication> { vt_gtk_application(raw) }
    @discardableResult
    public func onActivate(_ handler: @escaping Handler) -> HandlerID { on("activate", handler) }
    @discardableResult
    public func onShutdown(_ handler: @escaping Handler) -> HandlerID { on("shutdown", handler) }
    @discardableResult
    public func onStartup(_ handler: @escaping Handler) -> HandlerID { on("startup", handler) }
    /// Runs the GLib main loop with Swift's main queue attached; returns the exit status.
    public func run() -> Int32 {
        MainLoop.attachMainQueue()
        return g_application_run(vt_application(raw), CommandLine.argc, CommandLine.unsafeArgv)
    }
    public func quit() { g_application_quit(vt_application(raw)) }
    /// The program's name for people, process-wide (g_set_application_name: window titles, the
    /// sound and accessibility services, …).
    public static func setName(_ name: String) { g_set_application_name(name) }
}
