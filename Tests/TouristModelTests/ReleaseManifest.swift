import Foundation
import GRDB

// What a release fixture's manifest.json holds (`Stored` values, `Manifest`) and the rows the
// current migrations should leave of it (`Expected`), for ReleaseDataTests.

/// A stored value as the manifest gives it: REALs by their bits, so a coordinate that moved by
/// one unit in the last place is told apart.
enum Stored: Decodable, Hashable, CustomStringConvertible {
    case null, bool(Bool), integer(Int64), real(UInt64), text(String)

    static func double(_ value: Double) -> Stored { .real(value.bitPattern) }

    init(_ value: (some StoredScalar)?) { self = value?.stored ?? .null }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let number = try? container.decode(Int64.self) {
            self = .integer(number)
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            let real = try container.decode([String: String].self)
            guard let bits = real["bits"].flatMap({ UInt64($0, radix: 16) }) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a REAL without its bits")
            }
            self = .real(bits)
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .text("blob \(data.base64EncodedString())")
        }
    }

    static func row(_ row: Row) -> [String: Stored] {
        Dictionary(uniqueKeysWithValues: row.map { ($0.0, Stored($0.1)) })
    }

    var asInteger: Int64? { if case .integer(let number) = self { number } else { nil } }
    var asText: String? { if case .text(let text) = self { text } else { nil } }

    var description: String {
        switch self {
        case .null: "NULL"
        case .bool(let flag): "\(flag)"
        case .integer(let number): "\(number)"
        case .real(let bits): "\(Double(bitPattern: bits)) (\(String(bits, radix: 16)))"
        case .text(let text): "'\(text)'"
        }
    }
}

protocol StoredScalar { var stored: Stored { get } }
extension Int64: StoredScalar { var stored: Stored { .integer(self) } }
extension String: StoredScalar { var stored: Stored { .text(self) } }

/// A fixture's manifest.json (see FixtureGenerator.swift).
struct Manifest: Decodable {
    let tables: [String: [[String: Stored]]]
    let photoFiles: [String]
    let settings: [String: Stored]

    static func load(_ fixture: String) throws -> Manifest {
        let url = ReleaseDataTests.releases.appendingPathComponent("\(fixture)/manifest.json")
        return try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: url))
    }
}

/// The manifest's rows as the current migrations should leave them. The only change they make to
/// old data: v4 removes the second rows of a photo its source listed twice, keeping the copy
/// with a file (else the first), and closes up the album's positions.
struct Expected {
    let manifest: Manifest
    let tables: [String: [[String: Stored]]]
    let dropped: Set<Int64>
    let droppedFiles: Set<String>

    init(_ manifest: Manifest) {
        self.manifest = manifest
        var tables = manifest.tables
        let photos = tables["photo"] ?? []
        var dropped = Set<Int64>()
        if !(tables["grdb_migrations"] ?? []).contains(where: { $0["identifier"]?.asText?.hasPrefix("v4:") == true }) {
            let copies = Dictionary(grouping: photos) { [$0["pin_id"], $0["source"], $0["source_id"]] }
            for group in copies.values where group.count > 1 {
                let kept = group.min { a, b in
                    let (da, db) = (a["state"] == .text("downloaded"), b["state"] == .text("downloaded"))
                    if da != db { return da }
                    return (a["position"]!.asInteger!, a["id"]!.asInteger!) < (b["position"]!.asInteger!, b["id"]!.asInteger!)
                }!
                dropped.formUnion(group.filter { $0 != kept }.map { $0["id"]!.asInteger! })
            }
        }
        droppedFiles = Set(photos.filter { dropped.contains($0["id"]!.asInteger!) }.compactMap { $0["file_name"]?.asText })
        // The kept rows of each album that lost one, renumbered in their old order.
        let pinsWithDrops = Set(photos.filter { dropped.contains($0["id"]!.asInteger!) }.map { $0["pin_id"]! })
        var kept = photos.filter { !dropped.contains($0["id"]!.asInteger!) }
        for pin in pinsWithDrops {
            let indices = kept.indices.filter { kept[$0]["pin_id"] == pin }
                .sorted { (kept[$0]["position"]!.asInteger!, kept[$0]["id"]!.asInteger!) < (kept[$1]["position"]!.asInteger!, kept[$1]["id"]!.asInteger!) }
            for (position, index) in indices.enumerated() { kept[index]["position"] = .integer(Int64(position)) }
        }
        tables["photo"] = kept
        self.tables = tables
        self.dropped = dropped
    }

    /// The pin's album in order.
    func photos(pinId: Int64) -> [[String: Stored]] {
        (tables["photo"] ?? []).filter { $0["pin_id"] == .integer(pinId) }
            .sorted { ($0["position"]!.asInteger!, $0["id"]!.asInteger!) < ($1["position"]!.asInteger!, $1["id"]!.asInteger!) }
    }
}
