internal import CShim

/// GtkStack: one of several named children at a time, cross-fading between them.
@MainActor
public final class Stack: Widget {
    public init() {
        super.init(gtk_stack_new())
        gtk_stack_set_transition_type(vt_stack(raw), GTK_STACK_TRANSITION_TYPE_CROSSFADE)
    }
    /// Pages are named by the caller's enum, so a misspelt page cannot compile.
    public func add<Page: RawRepresentable>(_ child: Widget, as page: Page) where Page.RawValue == String {
        gtk_stack_add_named(vt_stack(raw), child.widget, page.rawValue)
    }
    /// `animated: false` switches in the same frame, without the cross-fade.
    public func show<Page: RawRepresentable>(_ page: Page, animated: Bool = true) where Page.RawValue == String {
        if animated {
            gtk_stack_set_visible_child_name(vt_stack(raw), page.rawValue)
        } else {
            gtk_stack_set_visible_child_full(vt_stack(raw), page.rawValue, GTK_STACK_TRANSITION_TYPE_NONE)
        }
    }
}
