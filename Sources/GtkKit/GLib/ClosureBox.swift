/// Holds a Swift closure for the lifetime of a GLib connection or source.
final class ClosureBox<Body> {
    let body: Body
    init(_ body: Body) { self.body = body }
}
