// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// A command line that must fail, run for real in a fresh directory: what the directory holds
/// first, the exit status, the `error: ...` line (and the `hint: ...` after it), and what the
/// command must leave as it was. One row of a table; `run()` checks it all.
struct FailingCommand: Sendable, CustomTestStringConvertible {
    let name: String
    /// The arguments; `FailingCommand.keys` stands for the testkit chain's directory.
    var arguments: [String]
    var status: Int32 = 64
    /// Text the `error:` line must contain.
    var message: String
    /// Whether a `hint:` line follows the error line (otherwise at most one line may).
    var hint = true
    /// The last line of standard error, when a row names it.
    var lastLine: String? = nil
    /// The whole of standard error, when a row names it (then `message` and `hint` are not
    /// checked).
    var errorLines: [String]? = nil
    var input: Input = .text("")
    /// Environment variables the command runs with.
    var environment: [String: String] = [:]
    /// What the directory holds before the command runs.
    var setup: [Step] = []
    /// What must hold afterwards, besides that no default ledger was made.
    var afterwards: [Check] = []
    /// Runs the binary so that file permissions bind it (`runBoundByPermissions`).
    var boundByPermissions = false
    /// Runs the binary with standard output on /dev/full.
    var outputToAFullDisk = false

    var testDescription: String { name }

    /// Stands for the testkit chain's directory in `arguments`.
    static let keys = "<testkit keys>"

    enum Input: Sendable, ExpressibleByStringLiteral {
        case text(String)
        /// The test's directory itself, which cannot be read as a stream.
        case theDirectory

        init(stringLiteral text: String) { self = .text(text) }
    }

    /// One thing done to the directory before the command runs.
    enum Step: Sendable {
        /// `migrate --db` this ledger.
        case migrate(String)
        case write(String, to: String)
        case makeDirectory(String)
        case makeNamedPipe(String)
        /// An SQLite database with no schema (as an interrupted backup leaves once SQLite
        /// rolled it back).
        case vacuum(String)
        /// `PRAGMA user_version` one past what this tipledger knows.
        case newerSchema(String)
        /// The first two pages of a fresh ledger: a header that promises more pages than the
        /// file has.
        case cutLedger(String)
        /// A tip and its refund recorded into this ledger.
        case recordTipAndRefund(String)
        /// The first page of a table overwritten with 0xA5 bytes.
        case overwriteRootPage(of: String, in: String)
        /// The permission bits of a file or directory; a directory is made writable again when
        /// the test ends.
        case chmod(String, Int)
    }

    /// One thing that must hold after the command.
    enum Check: Sendable {
        /// A file byte for byte, or a directory's list of files, as before the command.
        case unchanged(String)
        case absent(String)
        /// A directory holding these files and no other.
        case only([String], in: String)
        /// The first value `sql` gives on `ledger` (through the sqlite3 shell).
        case sql(String, on: String, is: String)
    }

    /// Runs the row in a fresh directory and checks everything it says.
    func run(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            var writableAgain: [String] = []
            defer {
                for path in writableAgain {
                    try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
                }
            }
            // What must stay as it was is read before any permission is taken away.
            let permissions = setup.firstIndex { if case .chmod = $0 { true } else { false } } ?? setup.count
            for step in setup[..<permissions] {
                try await Self.prepare(step, in: directory, writableAgain: &writableAgain)
            }
            var before: [String: Snapshot] = [:]
            for case .unchanged(let name) in afterwards { before[name] = try Snapshot(of: name, in: directory) }
            for step in setup[permissions...] {
                try await Self.prepare(step, in: directory, writableAgain: &writableAgain)
            }

            let arguments = self.arguments.map { $0 == Self.keys ? keys : $0 }
            let result = try await execute(arguments, in: directory)

            #expect(result.exited(status), "\(result.summary)", sourceLocation: sourceLocation)
            if let errorLines {
                #expect(result.out.isEmpty, "\(result.out.prefix(300))", sourceLocation: sourceLocation)
                #expect(result.errLines == errorLines, sourceLocation: sourceLocation)
            } else {
                ExitStatusTests.expectErrorLines(
                    result, containing: message, hint: hint, sourceLocation: sourceLocation)
            }
            if let lastLine {
                #expect(result.errLines.last == lastLine, sourceLocation: sourceLocation)
            }
            #expect(
                !directory.exists("tipledger.sqlite"), "a failing command makes no ledger",
                sourceLocation: sourceLocation)
            for check in afterwards {
                switch check {
                case .unchanged(let name):
                    #expect(
                        try Snapshot(of: name, in: directory) == before[name], "\(name)", sourceLocation: sourceLocation
                    )
                case .absent(let name):
                    #expect(!directory.exists(name), "\(name) exists", sourceLocation: sourceLocation)
                case .only(let names, let folder):
                    #expect(
                        try FileManager.default.contentsOfDirectory(atPath: directory.file(folder)).sorted()
                            == names.sorted(), "\(folder)", sourceLocation: sourceLocation)
                case .sql(let sql, let ledger, let expected):
                    #expect(
                        try await SQLiteShell.value(ledger, sql, in: directory.path) == expected, "\(sql)",
                        sourceLocation: sourceLocation)
                }
            }
        }
    }

    /// Runs the binary as the row says.
    private func execute(_ arguments: [String], in directory: TemporaryDirectory) async throws -> ProcessOutput {
        let input: Subprocess.Input =
            switch self.input {
            case .text(let text): .text(text)
            case .theDirectory: .file(directory.path)
            }
        if outputToAFullDisk {
            return try await Subprocess(
                executable: "/bin/sh",
                arguments: ["-c", #"exec "$@" > /dev/full"#, "sh", try TipLedgerBinary.path()] + arguments,
                environment: Subprocess.baseEnvironment().merging(environment) { $1 }, directory: directory.path,
                input: input
            ).run()
        }
        if boundByPermissions {
            return try await ExitStatusTests.runBoundByPermissions(arguments, in: directory.path)
        }
        return try await TipLedgerBinary.run(
            arguments, input: input, environment: environment, in: directory.path)
    }

    private static func prepare(
        _ step: Step, in directory: TemporaryDirectory, writableAgain: inout [String]
    ) async throws {
        switch step {
        case .migrate(let ledger):
            let migrate = try await TipLedgerBinary.run(["migrate", "--db", ledger], in: directory.path)
            try #require(migrate.exited(0), "\(migrate.summary)")
        case .write(let text, let name):
            try directory.write(text, to: name)
        case .makeDirectory(let name):
            try FileManager.default.createDirectory(atPath: directory.file(name), withIntermediateDirectories: false)
        case .makeNamedPipe(let name):
            guard mkfifo(directory.file(name), 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        case .vacuum(let name):
            _ = try await SQLiteShell.rows(name, "VACUUM;", in: directory.path)
        case .newerSchema(let ledger):
            let known = try await SQLiteShell.value(ledger, "PRAGMA user_version", in: directory.path)
            let version = try #require(Int(known))
            _ = try await SQLiteShell.rows(ledger, "PRAGMA user_version = \(version + 1)", in: directory.path)
        case .cutLedger(let name):
            try await prepare(.migrate("whole.sqlite"), in: directory, writableAgain: &writableAgain)
            try directory.read("whole.sqlite").prefix(16384).write(to: URL(fileURLWithPath: directory.file(name)))
        case .recordTipAndRefund(let ledger):
            try await ExitStatusTests.recordTipAndRefund(into: ledger, in: directory)
        case .overwriteRootPage(let table, let ledger):
            try await ExitStatusTests.overwriteFirstPage(of: table, in: ledger, directory: directory) { size in
                Data(repeating: 0xA5, count: size)
            }
        case .chmod(let name, let mode):
            let path = directory.file(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                writableAgain.append(path)
            }
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        }
    }

    /// A file's bytes, or a directory's sorted list of names.
    private enum Snapshot: Equatable {
        case file(Data)
        case directory([String])

        init(of name: String, in directory: TemporaryDirectory) throws {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: directory.file(name), isDirectory: &isDirectory)
            if isDirectory.boolValue {
                self = .directory(try FileManager.default.contentsOfDirectory(atPath: directory.file(name)).sorted())
            } else {
                self = .file(try directory.read(name))
            }
        }
    }
}
