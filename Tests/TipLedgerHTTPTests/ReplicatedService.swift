// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TipLedgerCore
import TipLedgerTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `litestream replicate -exec "tipledger serve …"` on a ledger in a temporary directory, with a
/// file replica beside it, as the container runs them: Litestream starts `serve`, forwards
/// signals to it and stops with it. Litestream logs at debug level, so a test can read each of
/// its syncs (and whether it had to copy the whole ledger again) from its output.
final class ReplicatedService {
    let directory: TemporaryDirectory
    let databasePath: String
    let rootPath: String
    let replicaPath: String
    let configPath: String
    /// The Litestream process; `serve` is its child. Litestream logs to standard output, and
    /// `serve`'s standard error comes through on Litestream's.
    let child: TipledgerProcess
    let port: UInt16

    /// Runs the pinned Litestream (scripts/install-litestream puts it in /usr/local/bin) in
    /// place of tipledger, with the same arguments.
    static func launcher() throws -> ([String]) -> [String] {
        let paths = ["/usr/local/bin/litestream", "/usr/bin/litestream"]
        guard let path = paths.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ReplicationTestError.noLitestream(paths)
        }
        return { [path] + $0.dropFirst() }
    }

    /// Starts replicating and serving the ledger in `directory` (made first with `tipledger
    /// migrate`, as the container makes a new one, when missing). `settings` are lines of
    /// Litestream configuration for the database (`monitor-interval: 5s`); `replicated` is
    /// `serve`'s TIPLEDGER_REPLICATED. Waits at most 60 seconds for the serving line.
    init(in directory: TemporaryDirectory, settings: [String] = [], replicated: Bool = true) throws {
        self.directory = directory
        databasePath = directory.file("ledger.sqlite")
        rootPath = directory.file("root.cer")
        replicaPath = directory.file("replica")
        configPath = directory.file("litestream.yml")
        let environment = LiveService.environment(["TIPLEDGER_REPLICATED": replicated ? "1" : "0"])
        if !FileManager.default.fileExists(atPath: databasePath) {
            try Data(TestChains.standard.root.derEncoded).write(to: URL(fileURLWithPath: rootPath))
            let made = try TipledgerProcess.run(["migrate", "--db", databasePath], environment: environment)
            guard made.status == 0 else { throw ReplicationTestError.failed("tipledger migrate", made.errors) }
        }
        let database = (["path: \(databasePath)"] + settings).joined(separator: "\n    ")
        try "dbs:\n  - \(database)\n    replica:\n      url: file://\(replicaPath)\n".write(
            toFile: configPath, atomically: true, encoding: .utf8)
        let serve = try [
            TipledgerBinary.path(), "serve", "--db", databasePath, "--root", rootPath, "--listen", "127.0.0.1:0",
        ]
        child = try TipledgerProcess(
            ["replicate", "-config", configPath, "-log-level", "debug", "-exec", serve.joined(separator: " ")],
            environment: environment, launcher: try Self.launcher())
        var port: UInt16?
        _ = child.errors.wait(upTo: .seconds(60)) { text in
            port = LiveService.servingPort(in: text)
            return port != nil
        }
        guard let port else { throw TipledgerProcessError.noServingLine(child.errors.text + child.output.text) }
        self.port = port
    }

    deinit {
        // `serve` would outlive a Litestream killed alone, and keep the ledger open.
        if child.waitForExit(upTo: .zero) == nil { kill() }
    }

    /// Waits at most a minute for Litestream's first read of the log (its first sync), which
    /// is one `monitor-interval` after it starts: before, it has not opened the ledger, and
    /// copies nothing even when it stops. True once it did.
    func waitForFirstSync() -> Bool {
        child.output.wait(upTo: .seconds(60)) { $0.contains(" msg=sync ") }
    }

    /// Waits at most a minute until Litestream wrote a file to the replica; true once it did.
    func waitForUpload() -> Bool {
        child.output.wait(upTo: .seconds(60)) { $0.contains(#"msg="ltx file uploaded""#) }
    }

    /// Litestream's log so far.
    var log: [String] { child.output.lines }

    /// Litestream's syncs so far (`msg=sync` lines), each of which copied the new frames of the
    /// log, or the whole ledger (`snap=true`).
    var syncs: [String] { log.filter { $0.contains(" msg=sync ") } }

    /// The transaction ids (in Litestream's numbering) of the syncs that copied the whole
    /// ledger: the first of all, and any after Litestream lost its place in the log (the log
    /// line gives a reason). A sync that the stop interrupted is logged again when it is redone.
    var snapshots: Set<String> {
        Set(
            syncs.filter { $0.contains(" snap=true") }.compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("txid=") }.map(String.init)
            })
    }

    /// The `serve` process Litestream started: the child of one of its threads, whichever
    /// started it.
    var serveProcessIdentifier: Int32? {
        let tasks = "/proc/\(child.processIdentifier)/task"
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return threads.lazy.compactMap { thread in
            (try? String(contentsOfFile: "\(tasks)/\(thread)/children", encoding: .utf8))?.split(separator: " ").first
                .flatMap { Int32($0) }
        }.first
    }

    /// SIGTERM to Litestream, which passes it on to `serve`, waits for it, copies what is left
    /// of the log and exits: its exit status.
    func stop() -> Int32? {
        child.send(SIGTERM)
        return child.waitForExit(upTo: .seconds(60))
    }

    /// SIGKILL to `serve` and to Litestream, as a machine that dies would stop them.
    func kill() {
        if let serve = serveProcessIdentifier { Glibc.kill(serve, SIGKILL) }
        child.send(SIGKILL)
        _ = child.waitForExit(upTo: .seconds(30))
    }

    /// `litestream arguments...` run to its end.
    func litestream(_ arguments: [String]) throws -> (status: Int32?, output: String, errors: String) {
        try TipledgerProcess.run(arguments, environment: LiveService.environment(), launcher: try Self.launcher())
    }

    /// Restores the replica into `path`, which must not exist.
    func restore(to path: String) throws {
        let restored = try litestream(["restore", "-o", path, "file://\(replicaPath)"])
        guard restored.status == 0 else { throw ReplicationTestError.failed("litestream restore", restored.errors) }
    }

    /// `tipledger arguments... --db path`, trusting the test root, run to its end.
    func tipledger(_ arguments: [String], on path: String) throws -> (status: Int32?, output: String, errors: String) {
        try TipledgerProcess.run(
            arguments + ["--db", path, "--root", rootPath], environment: LiveService.environment())
    }
}

/// Why a replication test could not go on.
enum ReplicationTestError: Error, CustomStringConvertible {
    case noLitestream([String])
    case failed(String, String)

    var description: String {
        switch self {
        case .noLitestream(let paths):
            "no litestream at \(paths.joined(separator: " or ")); install it with scripts/install-litestream"
        case .failed(let command, let errors): "\(command) failed: \(errors)"
        }
    }
}
