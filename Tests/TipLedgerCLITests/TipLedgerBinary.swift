// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TipLedgerTestSupport

/// The real `tipledger` executable, as SwiftPM built it next to the test bundle.
enum TipLedgerBinary {
    /// Where the binary is looked for, best first: beside the test bundle, beside the test
    /// runner, then the project's default debug build folder.
    static let candidates: [String] = {
        var directories = [
            Bundle.main.bundleURL.path,
            Bundle.main.bundleURL.deletingLastPathComponent().path,
        ]
        if let runner = CommandLine.arguments.first {
            directories.append(URL(fileURLWithPath: runner).deletingLastPathComponent().path)
        }
        directories.append("\(Fixtures.projectDirectory)/.build/debug")
        return directories.map { "\($0)/tipledger" }
    }()

    /// The path of the binary; throws with every place looked at when it is missing.
    static func path() throws -> String {
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw MissingBinary(looked: candidates)
        }
        return found
    }

    /// Runs `tipledger arguments` in `directory` with only `environment` (plus PATH and the
    /// like; never an inherited `TIPLEDGER_*` variable).
    static func run(
        _ arguments: [String], input: Subprocess.Input = .none, environment: [String: String] = [:],
        in directory: String, killWhen: (@Sendable (Int) -> Bool)? = nil
    ) async throws -> ProcessOutput {
        try await Subprocess(
            executable: try path(), arguments: arguments,
            environment: Subprocess.baseEnvironment().merging(environment) { $1 }, directory: directory, input: input
        ).run(killWhen: killWhen)
    }
}

extension TipLedgerBinary {
    /// Starts `tipledger arguments` in `directory` with only the base environment, reading
    /// `input` and writing `output` (standard error is discarded), for a test that feeds it and
    /// reads it while it runs; the caller waits for it to end.
    static func start(_ arguments: [String], in directory: String, input: Pipe, output: Pipe) throws -> ChildProcess {
        let discarded = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(discarded) }
        let child = try ChildProcess(
            executable: try path(), arguments: arguments, environment: Subprocess.baseEnvironment(),
            directory: directory, standardInput: input.fileHandleForReading.fileDescriptor,
            standardOutput: output.fileHandleForWriting.fileDescriptor, standardError: discarded)
        // The child's ends are the child's now.
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        return child
    }
}

/// The `tipledger` executable was not built.
struct MissingBinary: Error, CustomStringConvertible {
    let looked: [String]
    var description: String {
        "the tipledger executable is missing; build it with 'swift build --build-tests'. Looked at: "
            + looked.joined(separator: ", ")
    }
}
