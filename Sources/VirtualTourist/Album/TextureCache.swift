import GtkKit

/// Decoded cell textures by photo id. Keeps the most recent ones (bounded, so a long album
/// doesn't keep every texture alive) and decodes each photo once even when a prefetch and a
/// cell ask for it at the same time.
@MainActor
final class TextureCache {
    /// Kept to a few screens: cells GTK keeps bound hold their own textures (see `PhotoGrid`).
    var capacity: Int {
        didSet { trim() }
    }
    private var textures: [Int64: Texture] = [:]
    private var order: [Int64] = []
    private var decoding: [Int64: Task<Texture?, Never>] = [:]

    init(capacity: Int) { self.capacity = capacity }

    subscript(id: Int64) -> Texture? { textures[id] }

    /// The photo's texture, decoded off the main thread at `side` px unless already known.
    func texture(for id: Int64, path: String, side: Int32) async -> Texture? {
        if let texture = textures[id] { return texture }
        let task = decoding[id] ?? Task { await Texture.load(path: path, covering: side) }
        decoding[id] = task
        let texture = await task.value
        decoding[id] = nil
        if let texture { keep(texture, for: id) }
        return texture
    }

    func isDecoding(_ id: Int64) -> Bool { decoding[id] != nil }

    func prefetch(id: Int64, path: String, side: Int32) {
        guard textures[id] == nil, decoding[id] == nil else { return }
        Task { _ = await texture(for: id, path: path, side: side) }
    }

    private func keep(_ texture: Texture, for id: Int64) {
        if textures.updateValue(texture, forKey: id) == nil { order.append(id) }
        trim()
    }

    private func trim() {
        guard order.count > capacity else { return }
        for id in order.prefix(order.count - capacity) { textures[id] = nil }
        order.removeFirst(order.count - capacity)
    }
}
