// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerTestSupport

/// The container's entrypoint with a Litestream replica configured (docs/operations.md), run
/// outside a container with the real Litestream and a file replica.
extension ServeLiveTests {
    /// A volume without a ledger gets the replica's, which Litestream writes under the
    /// container's umask (022): the ledger and the -wal and -shm files SQLite then makes with
    /// its mode must still be readable by their owner alone, as docs/ledger.md says of every
    /// ledger.
    @Test func aLedgerRestoredAtStartIsReadableByItsOwnerAlone() throws {
        let directory = try TemporaryDirectory()
        let serve = ["serve", "--listen", "127.0.0.1:0"]
        let first = try ContainerEntrypoint(serve, in: directory)
        #expect(first.waitUntilServing(), "\(first.child.errors.text)")
        #expect(first.waitForSnapshot(), "\(first.child.output.text)")
        #expect(first.stop() == 0, "\(first.child.errors.text)")

        let ledger = ContainerEntrypoint.ledgerPath(in: directory)
        for name in [ledger, ledger + "-wal", ledger + "-shm", directory.file(".ledger.sqlite-litestream")] {
            try? FileManager.default.removeItem(atPath: name)
        }
        let second = try ContainerEntrypoint(serve, in: directory)
        #expect(second.waitUntilServing(), "\(second.child.errors.text)")
        var modes: [String: Int] = [:]
        for suffix in ["", "-wal", "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: ledger + suffix)
            modes[suffix] = (attributes[.posixPermissions] as? NSNumber)?.intValue
        }
        let errors = second.child.errors.text
        #expect(second.stop() == 0, "\(second.child.errors.text)")

        #expect(errors.contains("restoring it from the replica") && !errors.contains("set up"), "\(errors)")
        #expect(modes == ["": 0o600, "-wal": 0o600, "-shm": 0o600])
    }
}
