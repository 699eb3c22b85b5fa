import Foundation

/// What the album page shows, as a pure value: the UI renders it and feeds it
/// events; no I/O happens here, so every transition is unit-testable.
public struct AlbumState: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        /// Nothing loaded yet.
        case idle
        /// Asking the service for a new set of photos.
        case searching
        /// Some photos are still downloading.
        case filling
        /// Every photo is either shown or failed.
        case ready
        /// The album has no photos.
        case empty
        /// The search failed; the message is for the user.
        case searchFailed(String)
    }

    public enum Cell: Sendable, Equatable {
        case placeholder(Photo)
        case shown(Photo)
        case failed(Photo)

        public var photo: Photo {
            switch self {
            case .placeholder(let photo), .shown(let photo), .failed(let photo): return photo
            }
        }

        public var isFailed: Bool {
            if case .failed = self { return true }
            return false
        }

        var isPlaceholder: Bool {
            if case .placeholder = self { return true }
            return false
        }

        /// The same cell holding an updated photo value.
        func with(_ photo: Photo) -> Cell {
            switch self {
            case .placeholder: return .placeholder(photo)
            case .shown: return .shown(photo)
            case .failed: return .failed(photo)
            }
        }
    }

    public private(set) var phase: Phase
    public private(set) var cells: [Cell]

    public init() {
        phase = .idle
        cells = []
    }

    /// The album as stored: downloaded photos shown, failed ones failed, the rest still to fetch.
    public init(stored photos: [Photo]) {
        cells = photos.sorted { $0.position < $1.position }.map { photo in
            switch photo.state {
            case .downloaded: return .shown(photo)
            case .failed: return .failed(photo)
            case .pending: return .placeholder(photo)
            }
        }
        phase = .idle
        settle()
    }

    public mutating func beginSearch() {
        phase = .searching
        cells = []
    }

    public mutating func searchSucceeded(_ photos: [Photo]) {
        cells = photos.map { .placeholder($0) }
        phase = .filling
        settle()
    }

    public mutating func searchFailed(_ message: String) {
        cells = []
        phase = .searchFailed(message)
    }

    /// A download finished. Returns the index to redraw, or nil when the photo
    /// is no longer in the album (a late result from an older collection).
    @discardableResult
    public mutating func photoShown(_ photo: Photo) -> Int? {
        guard let id = photo.id, let index = index(of: id) else { return nil }
        cells[index] = .shown(photo)
        settle()
        return index
    }

    @discardableResult
    public mutating func photoFailed(id: Int64, reason: String? = nil) -> Int? {
        guard let index = index(of: id) else { return nil }
        var photo = cells[index].photo
        photo.state = .failed
        photo.failure = reason
        cells[index] = .failed(photo)
        settle()
        return index
    }

    /// Puts a failed photo back in the queue; other cells are left alone.
    @discardableResult
    public mutating func retry(id: Int64) -> Int? {
        guard let index = index(of: id), case .failed(var photo) = cells[index] else { return nil }
        photo.state = .pending
        photo.failure = nil
        cells[index] = .placeholder(photo)
        settle()
        return index
    }

    /// Removes a cell, keeping positions of the others in step with the store
    /// (which closes the gap the same way).
    @discardableResult
    public mutating func remove(id: Int64) -> (index: Int, cell: Cell)? {
        guard let index = index(of: id) else { return nil }
        let cell = cells.remove(at: index)
        shiftPositions(from: index, by: -1)
        settle()
        return (index, cell)
    }

    /// Puts a removed cell back where it was.
    public mutating func undoRemove(_ cell: Cell, at index: Int) {
        let index = min(max(index, 0), cells.count)
        shiftPositions(from: index, by: 1)
        cells.insert(cell, at: index)
        settle()
    }

    public var isDownloading: Bool {
        phase == .searching || cells.contains(where: \.isPlaceholder)
    }

    public var canRequestNewCollection: Bool {
        guard !isDownloading else { return false }
        switch phase {
        case .ready, .empty, .searchFailed: return true
        case .idle, .searching, .filling: return false
        }
    }

    /// Shown photos out of all cells, for "12 of 21".
    public var progress: (shown: Int, total: Int) {
        (cells.reduce(0) { count, cell in
            if case .shown = cell { return count + 1 }
            return count
        }, cells.count)
    }

    /// Photos still to fetch, in album order.
    public var pendingPhotos: [Photo] {
        cells.filter(\.isPlaceholder).map(\.photo)
    }

    private func index(of id: Int64) -> Int? {
        cells.firstIndex { $0.photo.id == id }
    }

    private mutating func shiftPositions(from index: Int, by delta: Int) {
        for i in cells.indices where i >= index {
            var photo = cells[i].photo
            photo.position += delta
            cells[i] = cells[i].with(photo)
        }
    }

    /// Derives the phase from the cells, except while a search is running or has failed,
    /// which only a new search result changes.
    private mutating func settle() {
        switch phase {
        case .searching, .searchFailed: return
        case .idle, .filling, .ready, .empty:
            if cells.isEmpty {
                phase = .empty
            } else if cells.contains(where: \.isPlaceholder) {
                phase = .filling
            } else {
                phase = .ready
            }
        }
    }
}

/// Picks which page of results a new collection shows.
public enum PageChooser {
    /// Random page in 1...max(1, pages), never `current` when another page exists.
    public static func nextPage<R: RandomNumberGenerator>(pages: Int, current: Int?, using rng: inout R) -> Int {
        let last = max(1, pages)
        guard last > 1 else { return 1 }
        guard let current, (1...last).contains(current) else {
            return Int.random(in: 1...last, using: &rng)
        }
        // Draw from the other pages only: uniform, and no retry loop.
        let drawn = Int.random(in: 1...(last - 1), using: &rng)
        return drawn >= current ? drawn + 1 : drawn
    }
}
