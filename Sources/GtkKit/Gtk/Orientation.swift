internal import CShim

/// Which way a box lays out its children, or a clamp caps its child.
public enum Orientation: Sendable {
    case horizontal, vertical

    var gtk: GtkOrientation {
        switch self {
        case .horizontal: GTK_ORIENTATION_HORIZONTAL
        case .vertical: GTK_ORIENTATION_VERTICAL
        }
    }
}
