internal import CShim

/// Modifier keys held during an event (GdkModifierType); only those the app asks about are named.
public struct Modifiers: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    init(_ state: GdkModifierType) { rawValue = state.rawValue }
    var gdk: GdkModifierType { GdkModifierType(rawValue: rawValue) }

    public static let control = Modifiers(GDK_CONTROL_MASK)
    public static let alt = Modifiers(GDK_ALT_MASK)
}
