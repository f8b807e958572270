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

    /// `tipledger --format text serve` is the same command as `tipledger serve --format text`,
    /// but the entrypoint knows `serve` only as its first argument: with options before it, it
    /// would serve without restoring the replica's ledger and without replicating what it
    /// records. It refuses instead, before anything is made.
    @Test func optionsBeforeServeAreRefusedWhenAReplicaIsConfigured() throws {
        let directory = try TemporaryDirectory()
        let arguments = ["--format", "text", "serve", "--listen", "127.0.0.1:0"]
        let entrypoint = try ContainerEntrypoint(arguments, in: directory)
        let status = entrypoint.child.waitForExit(upTo: .seconds(60))
        let errors = entrypoint.child.errors.text

        #expect(status == 64, "\(errors)")
        #expect(errors.hasPrefix("error: ") && errors.contains("hint: "), "\(errors)")
        #expect(!FileManager.default.fileExists(atPath: ContainerEntrypoint.ledgerPath(in: directory)))
    }
}
