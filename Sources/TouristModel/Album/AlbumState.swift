import Foundation

/// One pin's album as a single read of the store found it: the pin's row, the album's generation
/// and its photos in order. Built where the read runs (off the main thread, in `observeAlbum`),
/// index and counts included, so the main thread only compares.
public struct AlbumRows: Sendable, Equatable {
    /// Nil once the pin is deleted.
    public let pin: Pin?
    /// Bumped by every `replaceAlbum`: tells a search's collection from the one it replaced.
    public let generation: Int64
    public let cells: [AlbumState.Cell]
    /// The decades the album's dated photos were taken in, oldest first, whichever is shown.
    public let periods: [Int]
    let index: [Int64: Int]
    let shown: Int
    /// Positions of the photos still to fetch, in album order.
    let pending: [Int]

    /// `photos` in any order: the album's order is their `position` (then id, as the store
    /// sorts), arranged as the pin says (`AlbumArrangement`).
    public init(pin: Pin?, generation: Int64 = 0, photos: [Photo]) {
        let arranged = AlbumArrangement(sort: pin?.albumSort ?? .asFound, period: pin?.albumPeriod, pin: pin?.coordinate)
            .arrange(photos.sorted(by: Photo.albumOrder))
        self.init(pin: pin, generation: generation, cells: arranged.photos.map(AlbumState.Cell.init),
                  periods: arranged.periods)
    }

    init(pin: Pin?, generation: Int64, cells: [AlbumState.Cell], periods: [Int]) {
        self.pin = pin
        self.generation = generation
        self.cells = cells
        self.periods = periods
        var index: [Int64: Int] = [:]
        index.reserveCapacity(cells.count)
        var shown = 0
        var pending: [Int] = []
        for (position, cell) in cells.enumerated() {
            if let id = cell.photo.id { index[id] = position }
            switch cell {
            case .shown: shown += 1
            case .placeholder: pending.append(position)
            case .failed: break
            }
        }
        self.index = index
        self.shown = shown
        self.pending = pending
    }

    /// The album was filled once (a search stored its page), even if it has no photo now; a
    /// deleted pin has nothing to search for. The user's own photos do not fill it: the
    /// others' still come around them.
    var wasFilled: Bool { pin == nil || pin?.albumPage != nil || cells.contains { !$0.photo.isYours } }

    /// The same rows with one photo as just written (for a loader that does not observe them).
    func replacing(_ photo: Photo) -> AlbumRows {
        guard let id = photo.id, let position = index[id] else { return self }
        var cells = cells
        cells[position] = AlbumState.Cell(photo)
        return AlbumRows(pin: pin, generation: generation, cells: cells, periods: periods)
    }

    /// The same rows with photos whose files are in place but whose rows are not delivered yet
    /// (by id: the file's name) shown.
    func showing(_ arrived: [Int64: String]) -> AlbumRows {
        var cells = cells
        var changed = false
        for (id, name) in arrived {
            guard let position = index[id], case .placeholder(var photo) = cells[position] else { continue }
            (photo.fileName, photo.state, photo.failure) = (name, .downloaded, nil)
            cells[position] = .shown(photo)
            changed = true
        }
        return changed ? AlbumRows(pin: pin, generation: generation, cells: cells, periods: periods) : self
    }

    /// The same rows without some photos (removed, their deletion not observed yet).
    func hiding(_ ids: Set<Int64>) -> AlbumRows {
        guard ids.contains(where: { index[$0] != nil }) else { return self }
        return AlbumRows(pin: pin, generation: generation, cells: cells.filter { $0.photo.id.map { !ids.contains($0) } ?? true },
                         periods: periods)
    }

    public static func == (a: AlbumRows, b: AlbumRows) -> Bool {
        a.generation == b.generation && a.pin == b.pin && a.cells == b.cells
    }
}

/// What the album page shows, as a pure value derived from the stored rows and the one thing
/// the database does not hold: where a search stands. No I/O happens here.
public struct AlbumState: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        /// Nothing loaded yet (the store not read, or the album never filled).
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

    /// The search, which lives only in the loader.
    public enum Search: Sendable, Equatable {
        /// None running: the stored rows are the album.
        case none
        /// Running, or done while the store has not delivered its rows yet.
        case searching
        case failed(String)
    }

    /// A photo as its cell shows it, derived from `Photo.state`.
    public enum Cell: Sendable, Equatable {
        case placeholder(Photo)
        case shown(Photo)
        case failed(Photo)

        public init(_ photo: Photo) {
            switch photo.state {
            case .pending: self = .placeholder(photo)
            case .downloaded: self = .shown(photo)
            case .failed: self = .failed(photo)
            }
        }

        public var photo: Photo {
            switch self {
            case .placeholder(let photo), .shown(let photo), .failed(let photo): return photo
            }
        }

        public var isFailed: Bool {
            if case .failed = self { return true }
            return false
        }

        public var isPlaceholder: Bool {
            if case .placeholder = self { return true }
            return false
        }
    }

    public let phase: Phase
    /// Empty while a search runs or after it failed: the stored rows are then the collection
    /// being replaced, or the one the failed search left.
    public var cells: [Cell] { rows?.cells ?? [] }
    /// The album's pin as stored now (its place's name may have arrived since the album was
    /// opened), whatever the phase; nil before the store's first read and once the pin is deleted.
    public let pin: Pin?
    /// Nil unless the phase shows the cells.
    private let rows: AlbumRows?

    public init() {
        phase = .idle
        rows = nil
        pin = nil
    }

    public init(rows: AlbumRows?, search: Search = .none) {
        pin = rows?.pin
        switch search {
        case .searching:
            phase = .searching
            self.rows = nil
        case .failed(let message):
            phase = .searchFailed(message)
            self.rows = nil
        case .none:
            guard let rows, rows.wasFilled else {
                phase = .idle
                self.rows = nil
                return
            }
            self.rows = rows
            phase = rows.cells.isEmpty ? .empty : rows.pending.isEmpty ? .ready : .filling
        }
    }

    /// The album as stored (tests, and the rows a read returned).
    public init(stored photos: [Photo]) {
        self.init(rows: AlbumRows(pin: nil, photos: photos))
    }

    public var isDownloading: Bool {
        phase == .searching || !(rows?.pending.isEmpty ?? true)
    }

    public var canRequestNewCollection: Bool {
        guard !isDownloading else { return false }
        switch phase {
        case .ready, .empty, .searchFailed: return true
        case .idle, .searching, .filling: return false
        }
    }

    /// Shown photos out of all cells, for "12 of 21".
    public var progress: (shown: Int, total: Int) { (rows?.shown ?? 0, cells.count) }

    /// Photos still to fetch, in album order.
    public var pendingPhotos: [Photo] {
        guard let rows else { return [] }
        return rows.pending.map { rows.cells[$0].photo }
    }

    /// Photos still to fetch, lazily: a loader stops at its first busy slot.
    var pending: LazyMapSequence<[Int], Photo> {
        let cells = self.cells
        return (rows?.pending ?? []).lazy.map { cells[$0].photo }
    }

    /// The downloaded photos in album order (what the viewer pages through).
    public var shownPhotos: [Photo] {
        cells.compactMap { if case .shown(let photo) = $0 { photo } else { nil } }
    }

    public func index(of id: Int64) -> Int? { rows?.index[id] }

    /// The decades the album's photos were taken in (for the period filter), oldest first.
    public var periods: [Int] { rows?.periods ?? [] }

    /// How the album is arranged: its pin's choice.
    public var arrangement: AlbumArrangement {
        AlbumArrangement(sort: rows?.pin?.albumSort ?? .asFound,
                         period: rows?.pin?.albumPeriod.flatMap { periods.contains($0) ? $0 : nil })
    }

    public func cell(id: Int64) -> Cell? { index(of: id).map { cells[$0] } }

    public static func == (a: AlbumState, b: AlbumState) -> Bool { a.phase == b.phase && a.rows == b.rows }
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
