// SPDX-License-Identifier: GPL-3.0-or-later

/// A statement cache key that hashes only the SQL's length and its first and last eight bytes:
/// hashing a whole statement of several hundred bytes on every execution cost more than
/// binding its values. Equality still compares the whole text (at once when both are the same
/// literal).
struct StatementKey: Hashable {
    let sql: String

    static func == (left: StatementKey, right: StatementKey) -> Bool { left.sql == right.sql }

    func hash(into hasher: inout Hasher) {
        var sql = sql
        sql.withUTF8 { bytes in
            hasher.combine(bytes.count)
            guard bytes.count >= 8 else { return hasher.combine(bytes: UnsafeRawBufferPointer(bytes)) }
            let raw = UnsafeRawBufferPointer(bytes)
            hasher.combine(raw.loadUnaligned(as: UInt64.self))
            hasher.combine(raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
        }
    }
}
