internal import CShim

/// The pins and pin groups on a `MapView`, drawn by one layer (the shim's VtPinLayer): a frame
/// costs a texture per mark in view, not a widget. Input is the caller's: `index(atX:y:)` says
/// which mark is under a point.
@MainActor
public final class MapMarks {
    public enum Kind: Equatable, Sendable {
        case pin
        /// A pin in edit mode, grey.
        case mutedPin
        /// A round badge with the count.
        case group(count: Int)
        /// A photo where it was taken, its picture in a round frame (`setPhotoImage`); `count`
        /// photos grouped under it when more than one; larger and in the accent colour when selected.
        case photo(id: Int64, count: Int, selected: Bool)
    }

    public struct Mark: Equatable, Sendable {
        public var latitude: Double
        public var longitude: Double
        public var kind: Kind
        public init(latitude: Double, longitude: Double, kind: Kind) {
            self.latitude = latitude
            self.longitude = longitude
            self.kind = kind
        }
    }

    /// Owned by the map it is added to (see `MapView`).
    let layer: OpaquePointer
    private var marks: [Mark] = []

    init(viewport: OpaquePointer) {
        layer = vt_pin_layer_new(viewport)
    }

    /// The mark drawn as under the pointer.
    public private(set) var hovered: Int?

    /// Draws exactly these, later ones over earlier ones. What was under the pointer may have
    /// moved or gone: the next motion finds it again.
    public func show(_ marks: [Mark]) {
        guard marks != self.marks else { return }
        self.marks = marks
        hovered = nil
        let drawn = marks.map { mark -> VtPinMark in
            switch mark.kind {
            case .pin: VtPinMark(latitude: mark.latitude, longitude: mark.longitude, kind: VT_PIN_MARK_PIN, count: 1, key: 0)
            case .mutedPin:
                VtPinMark(latitude: mark.latitude, longitude: mark.longitude, kind: VT_PIN_MARK_PIN_MUTED, count: 1, key: 0)
            case .group(let count):
                VtPinMark(latitude: mark.latitude, longitude: mark.longitude, kind: VT_PIN_MARK_GROUP,
                          count: UInt32(clamping: count), key: 0)
            case .photo(let id, let count, let selected):
                VtPinMark(latitude: mark.latitude, longitude: mark.longitude,
                          kind: selected ? VT_PIN_MARK_PHOTO_SELECTED : VT_PIN_MARK_PHOTO,
                          count: UInt32(clamping: count), key: guint64(UInt64(bitPattern: id)))
            }
        }
        drawn.withUnsafeBufferPointer { vt_pin_layer_set_marks(layer, $0.baseAddress, UInt32($0.count)) }
    }

    /// The index (in the last `show`) of the topmost mark drawn at a point in `MapView.mapArea`
    /// coordinates.
    public func index(atX x: Double, y: Double) -> Int? {
        let index = vt_pin_layer_mark_at(layer, x, y)
        return index >= 0 ? Int(index) : nil
    }

    /// The picture photo marks of `id` show (nil: a plain disc).
    public func setPhotoImage(id: Int64, _ texture: Texture?) {
        vt_pin_layer_set_photo_image(layer, guint64(UInt64(bitPattern: id)), texture?.pointer)
    }

    /// The mark drawn as under the pointer.
    public func setHovered(_ index: Int?) {
        hovered = index
        vt_pin_layer_set_hovered(layer, index.map { Int32(clamping: $0) } ?? -1)
    }
}
