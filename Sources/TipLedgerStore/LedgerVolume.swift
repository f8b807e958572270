// SPDX-License-Identifier: GPL-3.0-or-later

#if canImport(Glibc)
    internal import Glibc
#endif

/// The file system a ledger is on, as `statvfs(3)` describes it: for errors that name why a
/// write failed, and for a health check that asks whether there is room to write again.
struct LedgerVolume {
    private let status: statvfs

    /// The file system holding `path` (a file, or the directory a new file would go in); nil
    /// when it cannot be asked.
    init?(holding path: String) {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return nil }
        self.status = status
    }

    /// The file system holding the ledger at `path`: its own, or its directory's while the file
    /// does not exist.
    static func of(ledger path: String) -> LedgerVolume? {
        LedgerVolume(holding: path) ?? LedgerVolume(holding: Ledger.directory(of: path))
    }

    /// Whether it is mounted read-only: no user may write it, root included.
    var isReadOnly: Bool { status.f_flag & UInt(ST_RDONLY) != 0 }

    /// Bytes an unprivileged writer may still use.
    var availableBytes: UInt64 { UInt64(status.f_bavail) * UInt64(status.f_frsize) }
}
