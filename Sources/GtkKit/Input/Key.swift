internal import CShim

/// A key as GDK names it (its keyval): what a press produced after the keyboard layout and Shift,
/// so `s` and `S` are two keys. Only the keys the app handles are named.
public struct Key: Hashable, Sendable {
    let keyval: UInt32

    init(keyval: UInt32) { self.keyval = keyval }
    private init(_ keyval: Int32) { self.keyval = UInt32(keyval) }

    /// GDK's name for the key ("Left", "plus", "BackSpace"): what accelerator strings are made of.
    public var name: String { gdk_keyval_name(keyval).map { String(cString: $0) } ?? "" }

    public static let left = Key(GDK_KEY_Left)
    public static let right = Key(GDK_KEY_Right)
    public static let up = Key(GDK_KEY_Up)
    public static let down = Key(GDK_KEY_Down)
    public static let keypadLeft = Key(GDK_KEY_KP_Left)
    public static let keypadRight = Key(GDK_KEY_KP_Right)
    public static let keypadUp = Key(GDK_KEY_KP_Up)
    public static let keypadDown = Key(GDK_KEY_KP_Down)

    public static let delete = Key(GDK_KEY_Delete)
    public static let keypadDelete = Key(GDK_KEY_KP_Delete)
    public static let backSpace = Key(GDK_KEY_BackSpace)
    public static let enter = Key(GDK_KEY_Return)
    public static let keypadEnter = Key(GDK_KEY_KP_Enter)

    public static let plus = Key(GDK_KEY_plus)
    public static let equal = Key(GDK_KEY_equal)
    public static let minus = Key(GDK_KEY_minus)
    public static let keypadAdd = Key(GDK_KEY_KP_Add)
    public static let keypadSubtract = Key(GDK_KEY_KP_Subtract)
    public static let digit0 = Key(GDK_KEY_0)
    public static let digit1 = Key(GDK_KEY_1)
    public static let keypad0 = Key(GDK_KEY_KP_0)
    public static let keypad1 = Key(GDK_KEY_KP_1)

    public static let c = Key(GDK_KEY_c)
    public static let C = Key(GDK_KEY_C)
    public static let d = Key(GDK_KEY_d)
    public static let s = Key(GDK_KEY_s)
    public static let S = Key(GDK_KEY_S)
}
