// SPDX-License-Identifier: GPL-3.0-or-later

#if canImport(Glibc)
    internal import Glibc
#endif

extension Ledger {
    /// Writes a consistent copy of the ledger to `destination` with `VACUUM INTO`, safe while
    /// other processes use it. The destination must not exist.
    public func backup(to destination: String) throws {
        _ = try withReader { database in
            guard database.openedFor.mayWrite else {
                // SQLite 3.40 refuses it: "table vacuum_db.transactions has 25 columns but 29
                // values were supplied" (the generated columns), on a read-only connection only.
                throw StoreError(
                    code: 0, message: "cannot back up \(path): this user may not write it or its directory",
                    hint: "back it up as a user who can, or copy the file while no process writes it")
            }
            // Written under a name of its own, then given `destination`'s: a backup that fails
            // (a full disk) or is killed leaves no file there to be taken for a copy, nor one that
            // stops the next try. A killed one leaves its `.partial-…` file behind.
            let partial = try Self.createPartial(for: destination)
            defer {
                unlink(partial)
                unlink(partial + "-journal")
            }
            // VACUUM INTO writes into an empty file as into a new one. The file made, the
            // directory's faults were found by `createPartial`.
            try database.run("VACUUM INTO ?", partial)
            try Self.publish(partial, as: destination)
        }
    }

    /// Creates an empty file beside `destination` under a name no other backup has (a random
    /// suffix, created exclusively), readable by its owner alone; returns its path.
    private static func createPartial(for destination: String) throws -> String {
        while true {
            let partial = "\(destination).partial-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
            let file = Glibc.open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            let openError = errno
            if file >= 0 {
                close(file)
                return partial
            }
            guard openError == EEXIST else {
                let directory = directory(of: destination)
                let reason =
                    openError == EROFS
                    ? "a read-only file system"
                    : access(directory, F_OK) != 0
                        ? "no such directory"
                        : access(directory, W_OK) != 0
                            ? "the directory is not writable by this user" : String(cString: strerror(openError))
                throw StoreError(
                    code: 0, message: "cannot write the backup to \(destination): \(reason)",
                    hint: "choose a path in an existing directory this user can write")
            }
        }
    }

    /// Gives the finished copy at `partial` the name `destination`, never over a file there:
    /// a hard link where the file system has them, else a rename once the name is checked free
    /// (which a file made there in the instant between would not survive). Then syncs the
    /// directory, without which the new name is not durable.
    private static func publish(_ partial: String, as destination: String) throws {
        if link(partial, destination) != 0 {
            let linkError = errno
            var failure = linkError
            if [EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS, EMLINK].contains(linkError) {
                failure = access(destination, F_OK) == 0 ? EEXIST : rename(partial, destination) == 0 ? 0 : errno
            }
            if failure != 0 {
                throw StoreError(
                    code: 0,
                    message: "cannot write the backup to \(destination): "
                        + (failure == EEXIST ? "it exists now" : String(cString: strerror(failure))),
                    hint: failure == EEXIST ? "choose a new file name" : nil)
            }
        }
        let directory = Glibc.open(directory(of: destination), O_RDONLY | O_DIRECTORY)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
