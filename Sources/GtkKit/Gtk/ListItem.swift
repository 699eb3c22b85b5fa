internal import CShim

/// A GtkListItem as seen by the factory's setup/bind/unbind handlers.
@MainActor
public struct ListItem {
    package let pointer: OpaquePointer
    public var key: ObjectIdentifierKey { ObjectIdentifierKey(pointer) }
    public func setChild(_ widget: Widget) { gtk_list_item_set_child(pointer, widget.widget) }
    public var position: Int { Int(gtk_list_item_get_position(pointer)) }
    /// The name the grid cell itself has for assistive technology (the cell, not its content,
    /// is what a screen reader lands on when arrows move through the grid).
    public func setAccessibleLabel(_ label: String) { gtk_list_item_set_accessible_label(pointer, label) }
    /// The key of the item bound here (the list's items are GtkStringObjects).
    public var string: String? {
        guard let item = gtk_list_item_get_item(pointer) else { return nil }
        return GtkKit.string(gtk_string_object_get_string(vt_string_object(item)))
    }
}

/// Identity of a C object, usable as a dictionary key.
public struct ObjectIdentifierKey: Hashable, Sendable {
    let address: UInt
    package init(_ pointer: OpaquePointer) { address = UInt(bitPattern: UnsafeRawPointer(pointer)) }
}
