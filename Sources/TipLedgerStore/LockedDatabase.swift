// SPDX-License-Identifier: GPL-3.0-or-later
internal import Synchronization

/// A connection used by one thread at a time, behind a mutex.
final class LockedDatabase: Sendable {
    private let mutex: Mutex<Database>

    init(_ database: consuming sending Database) {
        mutex = Mutex(database)
    }

    func withLock<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result {
        try mutex.withLock { database throws -> sending Result in try body(database) }
    }

    /// Runs `body` when no other thread holds the connection; nil otherwise, at once.
    func withLockIfAvailable<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result? {
        try mutex.withLockIfAvailable { database throws -> sending Result in try body(database) }
    }
}
