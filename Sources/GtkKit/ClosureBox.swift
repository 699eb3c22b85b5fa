/// Holds a Swift closure for the lifetime of a GLib connection or source.
public final class ClosureBox<Body> {
    public let body: Body
    public init(_ body: Body) { self.body = body }
}
