/// How the album's cells changed between two states, by photo id: the splices that turn the old
/// order into the new one, and the photos that changed in place. A list model of photo ids
/// applies the splices; only the updated photos' cells are bound again.
public struct AlbumChanges: Sendable, Equatable {
    /// `removing` ids at `index`, then `adding` there; each splice applies to the list as the
    /// splices before it left it.
    public struct Splice: Sendable, Equatable {
        public let index: Int
        public let removing: Int
        public let adding: [Int64]

        public init(index: Int, removing: Int, adding: [Int64]) {
            self.index = index
            self.removing = removing
            self.adding = adding
        }
    }

    public let splices: [Splice]
    /// Photos in both states whose values differ (downloaded, failed, retried, moved up).
    public let updated: [Int64]

    public init(splices: [Splice], updated: [Int64]) {
        self.splices = splices
        self.updated = updated
    }
}

extension AlbumState {
    /// The changes from `old` to this state, found in one pass with the states' indexes by id.
    /// Nil when photos changed order, which the store never does (a full reload then).
    public func changes(since old: AlbumState) -> AlbumChanges? {
        let (before, after) = (old.cells, cells)
        var splices: [AlbumChanges.Splice] = []
        var updated: [Int64] = []
        var (i, j, at) = (0, 0, 0)
        while i < before.count || j < after.count {
            // Runs of photos only the old state has, then only the new one: one splice.
            var removing = 0
            while i < before.count, before[i].photo.id.flatMap({ index(of: $0) }) == nil {
                removing += 1
                i += 1
            }
            var adding: [Int64] = []
            while j < after.count, after[j].photo.id.flatMap({ old.index(of: $0) }) == nil {
                if let id = after[j].photo.id { adding.append(id) }
                j += 1
            }
            if removing > 0 || !adding.isEmpty {
                splices.append(AlbumChanges.Splice(index: at, removing: removing, adding: adding))
                at += adding.count
                continue
            }
            guard i < before.count, j < after.count, let id = before[i].photo.id, after[j].photo.id == id else {
                return nil
            }
            if before[i] != after[j] { updated.append(id) }
            (i, j, at) = (i + 1, j + 1, at + 1)
        }
        return AlbumChanges(splices: splices, updated: updated)
    }
}

extension AlbumChanges.Splice {
    /// The part of this splice that a list holding only the album's first `count` photos takes:
    /// removals within it, additions only where photos follow them (added at its end, they wait
    /// for the list to grow). Nil when the list stays as it is; applied in order, the list stays
    /// a prefix of the album.
    public func clipped(toPrefix count: Int) -> Self? {
        guard index <= count else { return nil }
        let removing = min(self.removing, count - index)
        let adding = index < count - removing ? self.adding : []
        guard removing > 0 || !adding.isEmpty else { return nil }
        return Self(index: index, removing: removing, adding: adding)
    }
}
