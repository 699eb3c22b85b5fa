/// Items the user removed that the store may still deliver: hidden from what is shown until a
/// delivery no longer holds them (the removal is then settled) or Undo shows them again. The one
/// rule for pins awaiting deletion (`PinList`) and photos whose deletion is not delivered yet
/// (`AlbumLoader`), so that neither flickers back between the removal and the store's word.
public struct PendingRemovals<ID: Hashable & Sendable>: Sendable {
    public private(set) var ids: Set<ID> = []

    public init() {}

    public var isEmpty: Bool { ids.isEmpty }

    public func contains(_ id: ID) -> Bool { ids.contains(id) }

    public mutating func hide(_ removed: some Sequence<ID>) { ids.formUnion(removed) }

    /// Shows them again (Undo); true when any of them was hidden.
    @discardableResult
    public mutating func unhide(_ restored: some Sequence<ID>) -> Bool {
        let before = ids.count
        ids.subtract(restored)
        return ids.count != before
    }

    /// The store delivered: removals it no longer holds are settled and need no hiding.
    public mutating func settle(stillStored: (ID) -> Bool) {
        if !ids.isEmpty { ids = ids.filter(stillStored) }
    }

    /// The delivered items without the hidden ones (items without an id are never hidden).
    public func visible<Item>(_ items: [Item], id: (Item) -> ID?) -> [Item] {
        ids.isEmpty ? items : items.filter { item in id(item).map { !ids.contains($0) } ?? true }
    }
}
