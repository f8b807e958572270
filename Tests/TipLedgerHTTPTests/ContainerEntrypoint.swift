// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TipLedgerTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `scripts/container-entrypoint ARGUMENTS...` run as the image runs it, outside a container:
/// `tipledger` and the pinned Litestream found on `PATH`, the ledger at `TIPLEDGER_DB`, a
/// litestream.yml (`LITESTREAM_CONFIG`) replicating it to a file replica in `directory`, and the
/// container runtime's usual umask, 022, rather than the test's.
final class ContainerEntrypoint {
    let child: TipledgerProcess

    /// The ledger the entrypoint serves, replicates and restores, in `directory`.
    static func ledgerPath(in directory: TemporaryDirectory) -> String { directory.file("ledger.sqlite") }

    /// The file replica, in `directory`.
    static func replicaPath(in directory: TemporaryDirectory) -> String { directory.file("replica") }

    /// Starts the entrypoint with `arguments`; the configuration and the `PATH` it needs are
    /// made in `directory` the first time.
    init(_ arguments: [String], in directory: TemporaryDirectory) throws {
        let bin = directory.file("bin")
        let config = directory.file("litestream.yml")
        if !FileManager.default.fileExists(atPath: bin) {
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: false)
            let litestream = try ReplicatedService.launcher()(["litestream"])[0]
            try FileManager.default.createSymbolicLink(atPath: "\(bin)/litestream", withDestinationPath: litestream)
            try FileManager.default.createSymbolicLink(
                atPath: "\(bin)/tipledger", withDestinationPath: try TipledgerBinary.path())
            let database = Self.ledgerPath(in: directory)
            let replica = Self.replicaPath(in: directory)
            try "dbs:\n  - path: \(database)\n    replica:\n      url: file://\(replica)\n".write(
                toFile: config, atomically: true, encoding: .utf8)
            try Data(TestChains.standard.root.derEncoded).write(to: URL(fileURLWithPath: directory.file("root.cer")))
        }
        let environment = LiveService.environment([
            "PATH": "\(bin):/usr/bin:/bin", "TIPLEDGER_DB": Self.ledgerPath(in: directory),
            "LITESTREAM_CONFIG": config, "TIPLEDGER_KEYS": directory.path,
        ])
        let script = "\(Fixtures.projectDirectory)/scripts/container-entrypoint"
        child = try TipledgerProcess(
            arguments, environment: environment,
            launcher: { command in
                ["/bin/sh", "-c", "umask 022 && exec \"$0\" \"$@\"", script] + command.dropFirst()
            })
    }

    deinit {
        // `serve` would outlive a Litestream killed alone, and keep the ledger open.
        if child.waitForExit(upTo: .zero) == nil { _ = stop() }
    }

    /// Waits at most a minute for `serve`'s serving line; true once it came.
    func waitUntilServing() -> Bool {
        child.errors.wait(upTo: .seconds(60)) { LiveService.servingPort(in: $0) != nil }
    }

    /// Waits at most a minute until Litestream copied the whole ledger to the replica, as it
    /// does on its first read of a new one; true once it did.
    func waitForSnapshot() -> Bool {
        child.output.wait(upTo: .seconds(60)) { $0.contains(#"msg="snapshot complete""#) }
    }

    /// SIGTERM, as `docker stop` sends it; the exit status.
    func stop() -> Int32? {
        child.send(SIGTERM)
        return child.waitForExit(upTo: .seconds(60))
    }
}
