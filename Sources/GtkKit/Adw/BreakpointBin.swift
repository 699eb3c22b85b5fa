internal import CShim

/// AdwBreakpointBin: applies its breakpoints from its own size, so one page adapts wherever it is
/// shown. The minimum size is the smallest the page is designed for (360×294 minus nothing: pages
/// fill the window).
@MainActor
public final class BreakpointBin: Widget {
    public init(child: Widget, minimumWidth: Int32, minimumHeight: Int32) {
        super.init(adw_breakpoint_bin_new())
        adw_breakpoint_bin_set_child(bin, child.widget)
        setSizeRequest(width: minimumWidth, height: minimumHeight)
    }
    private var bin: UnsafeMutablePointer<AdwBreakpointBin> { vt_adw_breakpoint_bin(raw) }

    /// Property values that apply while `condition` holds, in libadwaita's syntax
    /// ("max-width: 400sp", "max-height: 500px and max-width: 600sp"); the bin restores the
    /// previous values when it no longer does.
    public func addBreakpoint(_ condition: String, _ setters: [(Object, String, BreakpointValue)]) {
        guard let parsed = adw_breakpoint_condition_parse(condition) else {
            preconditionFailure("bad breakpoint condition: \(condition)")
        }
        let breakpoint = adw_breakpoint_new(parsed)  // takes the condition
        for (object, property, value) in setters {
            switch value {
            case .bool(let flag): vt_breakpoint_add_setter_bool(breakpoint, object.raw, property, flag.g)
            case .int(let number): vt_breakpoint_add_setter_int(breakpoint, object.raw, property, number)
            case .uint(let number): vt_breakpoint_add_setter_uint(breakpoint, object.raw, property, number)
            }
        }
        adw_breakpoint_bin_add_breakpoint(bin, breakpoint)  // takes the breakpoint
    }

    /// Whether one of the breakpoints applies now.
    public var isBreakpointApplied: Bool { adw_breakpoint_bin_get_current_breakpoint(bin) != nil }
    /// A breakpoint started or stopped applying (or another one took over).
    @discardableResult
    public func onBreakpointChanged(_ handler: @escaping Handler) -> HandlerID { onChange(of: "current-breakpoint", handler) }
}

/// A value an AdwBreakpoint gives a property.
public enum BreakpointValue: Sendable {
    case bool(Bool)
    case int(Int32)
    case uint(UInt32)
}
