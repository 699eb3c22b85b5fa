/// A change the user can take back while its Undo is offered (pins deleted, a photo removed, a
/// place renamed): shown at once, made final by `commit` (the offer went away, or the app quits),
/// taken back by `undo`; exactly one of them takes effect, once.
@MainActor
public protocol UndoableChange: AnyObject {
    /// How many things it changed: a deletion the next one joins grows ("3 pins deleted").
    var count: Int { get }
    /// Called after `count` grew, so the offer's text can follow.
    var onGrow: (() -> Void)? { get set }
    func undo()
    func commit()
}

/// An `UndoableChange` made of two closures (for changes the store makes final at once, such as
/// a rename, whose Undo is another change).
@MainActor
public final class ClosureChange: UndoableChange {
    public let count = 1
    public var onGrow: (() -> Void)?
    private var finish: (undo: () -> Void, commit: () -> Void)?

    public init(undo: @escaping () -> Void, commit: @escaping () -> Void = {}) {
        finish = (undo, commit)
    }

    public func undo() {
        let undo = finish?.undo
        finish = nil
        undo?()
    }

    public func commit() {
        let commit = finish?.commit
        finish = nil
        commit?()
    }
}
