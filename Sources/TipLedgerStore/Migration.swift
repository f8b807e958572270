// SPDX-License-Identifier: GPL-3.0-or-later

/// One numbered schema change from the top-level `migrations/` folder, compiled into the binary
/// by `scripts/embed` (see `EmbeddedMigrations.swift`). Never edited once released.
struct Migration: Sendable, Equatable {
    /// 1, 2, 3, ...: the `user_version` after the migration ran.
    let version: Int
    /// The file name, e.g. `0001_ledger.sql`.
    let name: String
    let sql: String

    init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// The migrations this binary carries, in order.
    static var all: [Migration] { embedded }

    /// The schema version this binary creates and understands.
    static var latestVersion: Int { embedded.last?.version ?? 0 }
}
