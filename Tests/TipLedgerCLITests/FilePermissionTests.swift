// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// The ledger and its backups hold account ids and signed purchases: whatever the umask, the
/// files tipledger creates are its user's alone.
@Suite struct FilePermissionTests {
    @Test func theLedgerAndItsBackupAreReadableByTheirOwnerAlone() async throws {
        try await TemporaryDirectory.with { directory in
            for arguments in [["migrate", "--db", "l.sqlite"], ["backup", "--db", "l.sqlite", "b.sqlite"]] {
                let result = try await Subprocess(
                    executable: "/bin/sh",
                    arguments: ["-c", #"umask 000 && exec "$@""#, "sh", try TipLedgerBinary.path()] + arguments,
                    environment: Subprocess.baseEnvironment(), directory: directory.path
                ).run()
                try #require(result.exited(0), "\(result.summary)")
            }
            for file in ["l.sqlite", "b.sqlite"] {
                let mode = try FileManager.default.attributesOfItem(atPath: directory.file(file))[.posixPermissions]
                #expect((mode as? NSNumber)?.intValue == 0o600, "\(file)")
            }
        }
    }
}
