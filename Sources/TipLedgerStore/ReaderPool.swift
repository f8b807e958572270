// SPDX-License-Identifier: GPL-3.0-or-later
internal import Synchronization

/// Query connections, each used by one thread at a time and kept for reuse.
final class ReaderPool: Sendable {
    let path: String
    /// Connections kept for reuse; more may exist briefly under a burst of readers.
    let capacity: Int
    private let idle = Mutex<[Database]>([])

    /// How long a reader waits when the database is locked, as the writer does.
    let busyTimeoutMilliseconds: Int32
    /// The access of the ledger's connections: a reader opens no file that is not there.
    let access: Database.Access

    init(
        path: String, busyTimeoutMilliseconds: Int32 = Database.defaultBusyTimeoutMilliseconds, capacity: Int = 8,
        access: Database.Access = .write
    ) {
        self.path = path
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.capacity = capacity
        self.access = access
    }

    func with<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result {
        let taken = idle.withLock { $0.popLast() }
        // A small page cache: readers look up indexes, the writer keeps the big cache.
        let database =
            try taken
            ?? Database(
                path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, cacheMebibytes: 2,
                access: access.mayWrite ? .read : access)
        defer {
            idle.withLock { idle in
                if idle.count < capacity { idle.append(database) }
            }
        }
        return try body(database)
    }
}
