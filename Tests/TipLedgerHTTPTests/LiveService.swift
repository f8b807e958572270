// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

@testable import TipLedgerStore

#if canImport(Glibc)
    import Glibc
#endif

/// `tipledger serve --listen 127.0.0.1:0` run as a child process on a ledger in its own
/// temporary directory, trusting the test PKI's root (`--root`), for com.example.tips in Sandbox.
final class LiveService {
    static let apiToken = "live-test-token-8d1f0c6b2a9e4d77"

    let directory: TemporaryDirectory
    let databasePath: String
    let rootPath: String
    let child: TipledgerProcess
    /// The port the kernel chose, read from the `serving http://127.0.0.1:PORT` line.
    let port: UInt16

    /// The environment every child gets: the app's settings and nothing of the test's own.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        [
            "PATH": "/usr/bin:/bin", "TIPLEDGER_BUNDLE_ID": "com.example.tips", "TIPLEDGER_ENVIRONMENT": "Sandbox",
        ].merging(extra) { $1 }
    }

    /// Starts serving; `environment` adds variables (such as `TIPLEDGER_API_TOKEN`) and
    /// `arguments` options of `serve`; `listen` nil leaves `--listen` out; the ledger is
    /// `database` in the directory, and `launcher` makes the command line run (see
    /// `TipledgerProcess`). Waits at most 60 seconds for the serving line.
    init(
        environment extra: [String: String] = ["TIPLEDGER_API_TOKEN": LiveService.apiToken], arguments: [String] = [],
        directory: TemporaryDirectory? = nil, trust: [String]? = nil, listen: String? = "127.0.0.1:0",
        database: String = "ledger.sqlite", launcher: ([String]) -> [String] = { $0 }
    ) throws {
        let directory = try directory ?? TemporaryDirectory()
        self.directory = directory
        databasePath = directory.file(database)
        rootPath = directory.file("root.cer")
        try Data(TestChains.standard.root.derEncoded).write(to: URL(fileURLWithPath: rootPath))
        child = try TipledgerProcess(
            ["serve", "--db", databasePath] + (trust ?? ["--root", rootPath]) + (listen.map { ["--listen", $0] } ?? [])
                + arguments,
            environment: Self.environment(extra), launcher: launcher)
        var port: UInt16?
        _ = child.errors.wait(upTo: .seconds(60)) { text in
            port = Self.servingPort(in: text)
            return port != nil
        }
        guard let port else { throw TipledgerProcessError.noServingLine(child.errors.text) }
        self.port = port
    }

    /// The port of the first `serving http://127.0.0.1:PORT ` line in `text`.
    static func servingPort(in text: String) -> UInt16? {
        let marker = "serving http://127.0.0.1:"
        guard let range = text.range(of: marker) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        guard text[range.upperBound...].dropFirst(digits.count).first == " " else { return nil }
        return UInt16(digits)
    }

    /// A new keep-alive connection to the service.
    func connect(receiveTimeout: Duration = .seconds(30)) throws -> LoopbackConnection {
        try LoopbackConnection(port: port, receiveTimeout: receiveTimeout)
    }

    /// Sends `signal` and waits at most `timeout` for the exit status.
    func stop(_ signal: Int32 = SIGTERM, upTo timeout: Duration = .seconds(30)) -> Int32? {
        child.send(signal)
        return child.waitForExit(upTo: timeout)
    }

    /// The access-log lines written so far (every line of standard error that is one).
    var accessLog: [AccessLogLine] { child.errors.lines.compactMap(AccessLogLine.init) }

    /// Standard error without the access log: what to show when the service ended badly.
    var diagnostics: String {
        child.errors.lines.filter { AccessLogLine($0) == nil }.suffix(20).joined(separator: "\n")
    }

    /// The ledger file, opened after the service stopped.
    func openLedger() throws -> Ledger {
        try Ledger.open(path: databasePath)
    }

    /// `tipledger ARGUMENTS --db LEDGER` with the service's settings, run to its end, with
    /// `input`, if given, as standard input.
    func runCommand(_ arguments: [String], input: [UInt8]? = nil) throws -> (
        status: Int32?, output: String, errors: String
    ) {
        let inputPath = directory.file("input")
        if let input { try Data(input).write(to: URL(fileURLWithPath: inputPath)) }
        return try TipledgerProcess.run(
            arguments + ["--db", databasePath, "--root", rootPath], environment: Self.environment(),
            input: input == nil ? nil : inputPath)
    }

    /// `tipledger health --listen 127.0.0.1:PORT`'s exit status.
    func healthStatus() throws -> Int32? {
        try TipledgerProcess.run(["health", "--listen", "127.0.0.1:\(port)"], environment: Self.environment()).status
    }
}

/// One access-log line of `serve`: `TIME CLIENT METHOD PATH STATUS SIZE DURATION`.
struct AccessLogLine: Equatable {
    let text: String
    let method: String
    let path: String
    let status: Int

    init?(_ line: String) {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 7, fields[0].hasSuffix("Z"), fields[1] == "127.0.0.1", let status = Int(fields[4]),
            fields[5].hasSuffix("B"), fields[6].hasSuffix("ms")
        else { return nil }
        text = line
        method = String(fields[2])
        path = String(fields[3])
        self.status = status
    }
}
