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
        return migrator
    }
}
