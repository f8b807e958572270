// SPDX-License-Identifier: GPL-3.0-or-later

#if canImport(Glibc)
    internal import Glibc
#endif

/// Watches a ledger read as an immutable snapshot (`Database.Access.snapshot`), which takes no
/// locks and ignores any -wal file: every answer read from it stands only if the file is still
/// the one first seen and no process has opened it to write meanwhile (a writer keeps a -wal
/// file beside it while open, and changes the file itself when it copies the log in).
struct SnapshotGuard: Sendable {
    /// The file read, with its symbolic links followed.
    let file: String
    /// What the user named it, for messages.
    let path: String
    private let seen: Identity?

    /// The file's inode, size and modification time.
    private struct Identity: Equatable, Sendable {
        let inode: UInt64
        let size: Int64
        let seconds: Int
        let nanoseconds: Int

        init?(_ file: String) {
            var status = stat()
            guard stat(file, &status) == 0 else { return nil }
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            seconds = status.st_mtim.tv_sec
            nanoseconds = status.st_mtim.tv_nsec
        }
    }

    init(file: String, path: String) {
        self.file = file
        self.path = path
        seen = Identity(file)
    }

    /// Throws unless the file is unchanged and has no -wal file beside it.
    func check() throws(StoreError) {
        guard seen != nil, Identity(file) == seen, access(file + "-wal", F_OK) != 0 else {
            throw StoreError(
                code: 0, message: "the ledger \(path) changed while it was read: a process opened it to write",
                hint: "run the command again; it then reads through that process's -wal and -shm files")
        }
    }

    /// `body`'s result, if the file did not change while it ran; otherwise, whatever `body`
    /// returned or threw (reading a changing file may look corrupt), the change is thrown.
    func reading<Result>(_ body: () throws -> Result) throws -> Result {
        let result = Swift.Result { try body() }
        try check()
        return try result.get()
    }
}

extension SnapshotGuard? {
    /// `body`'s result, checked by the guard when there is one (`SnapshotGuard.reading`).
    func guarding<Result>(_ body: () throws -> Result) throws -> Result {
        guard let self else { return try body() }
        return try self.reading(body)
    }
}
