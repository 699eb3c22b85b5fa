internal import CShim

/// GtkStack: one of several named children at a time, cross-fading between them.
@MainActor
public final class Stack: Widget {
    public init() {
        super.init(gtk_stack_new())
        gtk_stack_set_transition_type(vt_stack(raw), GTK_STACK_TRANSITION_TYPE_CROSSFADE)
    }
    public func add(_ child: Widget, name: String) { gtk_stack_add_named(vt_stack(raw), child.widget, name) }
    public var visibleName: String? {
        get { string(gtk_stack_get_visible_child_name(vt_stack(raw))) }
        set { gtk_stack_set_visible_child_name(vt_stack(raw), newValue) }
    }
}
