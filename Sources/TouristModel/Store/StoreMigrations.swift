import GRDB

/// Versioned schema. Migrations are append-only: never edit a shipped one,
/// users' databases have already run it.
enum StoreMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1: pins and photos") { db in
            try db.create(table: "pin") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("latitude", .double).notNull()
                t.column("longitude", .double).notNull()
                // Seconds since 2001-01-01 UTC: see Pin.databaseDateEncodingStrategy.
                t.column("created", .double).notNull()
                t.column("album_page", .integer)
                t.column("album_pages", .integer)
                t.column("album_source", .text)
            }
            try db.create(table: "photo") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("pin_id", .integer).notNull().indexed()
                    .references("pin", onDelete: .cascade)
                t.column("position", .integer).notNull()
                t.column("source", .text).notNull()
                t.column("source_id", .text).notNull()
                t.column("remote_url", .text).notNull()
                t.column("page_url", .text)
                // Unique so one file can never belong to two rows and be deleted under the other.
                t.column("file_name", .text).unique()
                t.column("title", .text).notNull().defaults(to: "")
                t.column("author", .text).notNull().defaults(to: "")
                t.column("license", .text).notNull().defaults(to: "")
                t.column("width", .integer)
                t.column("height", .integer)
                t.column("state", .text).notNull().defaults(to: PhotoState.pending.rawValue)
                    .check(sql: "state IN ('pending', 'downloaded', 'failed')")
            }
        }
        migrator.registerMigration("v2: album generation") { db in
            // Counts album replacements, so an Undo from an album that was replaced since
            // (New Collection) can be told apart and refused.
            try db.alter(table: "pin") { t in
                t.add(column: "album_generation", .integer).notNull().defaults(to: 0)
            }
        }
        migrator.registerMigration("v3: failure reason") { db in
            // Why a photo failed, so its cell can say so after the album is reopened.
            try db.alter(table: "photo") { t in
                t.add(column: "failure", .text)
            }
        }
        migrator.registerMigration("v4: one row per source photo") { db in
            try removeDuplicatePhotos(db)
            // A source listing a photo twice must not store or show it twice; replaceAlbum drops
            // repeats first, and the index makes sure no other path can.
            try db.create(index: "photo_on_pin_source_id", on: "photo", columns: ["pin_id", "source", "source_id"],
                          unique: true)
        }
        migrator.registerMigration("v5: place names") { db in
            // The name reverse geocoding found for the pin: NULL not looked up yet, '' none.
            try db.alter(table: "pin") { t in
                t.add(column: "place_name", .text)
            }
        }
        migrator.registerMigration("v6: the user's place names") { db in
            // Rename: the user's own name for the place, which wins over place_name.
            try db.alter(table: "pin") { t in
                t.add(column: "custom_name", .text)
            }
        }
        migrator.registerMigration("v7: sharper photos for the viewer") { db in
            // The album downloads the size its cells need; the viewer fetches this one.
            try db.alter(table: "photo") { t in
                t.add(column: "large_url", .text)
            }
        }
        migrator.registerMigration("v8: where photos were taken") { db in
            // The photo's own position when the source gives one (NULL: unknown).
            try db.alter(table: "photo") { t in
                t.add(column: "latitude", .double)
                t.add(column: "longitude", .double)
            }
        }
        migrator.registerMigration("v9: when photos were taken, and each album's order") { db in
            // "1936", "1936-05" or "1936-05-01" (NULL: unknown), which sorts in time order.
            try db.alter(table: "photo") { t in
                t.add(column: "taken", .text)
            }
            // How the album is arranged (`AlbumSort`; NULL as found) and the decade it is
            // limited to (NULL: all).
            try db.alter(table: "pin") { t in
                t.add(column: "album_sort", .text)
                t.add(column: "album_period", .integer)
            }
        }
        migrator.registerMigration("v10: Wikipedia's articles near each pin") { db in
            try db.create(table: "article") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("pin_id", .integer).notNull().indexed().references("pin", onDelete: .cascade)
                // Nearest first, as the wiki's answer was sorted when stored.
                t.column("position", .integer).notNull()
                t.column("language", .text).notNull()
                t.column("page_id", .integer).notNull()
                t.column("title", .text).notNull()
                t.column("latitude", .double).notNull()
                t.column("longitude", .double).notNull()
                t.column("extract", .text).notNull()
                t.column("thumbnail_url", .text)
                t.column("disambiguation", .boolean).notNull()
                t.uniqueKey(["pin_id", "language", "page_id"])
            }
            // When the pin's articles were last fetched (seconds since 2001; NULL: never), and
            // from which wiki: a week later, or in another language, they are fetched again.
            try db.alter(table: "pin") { t in
                t.add(column: "articles_fetched", .double)
                t.add(column: "articles_language", .text)
            }
        }
        migrator.registerMigration("v11: 360° pictures") { db in
            // Panoramax's 360° pictures, shown flat: the album says so.
            try db.alter(table: "photo") { t in
                t.add(column: "panorama", .boolean).notNull().defaults(to: false)
            }
        }
        return migrator
    }

    /// Albums stored before v4 may hold a photo twice: the copy kept is the downloaded one (it
    /// has its file), else the first; the others go, and positions close up. A file only the
    /// removed rows named is a stray file, which the next repair removes.
    static func removeDuplicatePhotos(_ db: Database) throws {
        let better = """
            q.pin_id = p.pin_id AND q.source = p.source AND q.source_id = p.source_id AND q.id != p.id
            AND ((q.state = 'downloaded') > (p.state = 'downloaded')
                 OR ((q.state = 'downloaded') = (p.state = 'downloaded')
                     AND (q.position < p.position OR (q.position = p.position AND q.id < p.id))))
            """
        let pins = try Int64.fetchAll(db, sql: "SELECT DISTINCT p.pin_id FROM photo p JOIN photo q ON \(better)")
        guard !pins.isEmpty else { return }
        try db.execute(sql: "DELETE FROM photo WHERE id IN (SELECT p.id FROM photo p JOIN photo q ON \(better))")
        for pin in pins {
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM photo WHERE pin_id = ? ORDER BY position, id",
                                         arguments: [pin])
            for (position, id) in ids.enumerated() {
                try db.execute(sql: "UPDATE photo SET position = ? WHERE id = ?", arguments: [position, id])
            }
        }
    }
}
