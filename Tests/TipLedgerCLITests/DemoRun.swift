// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TipLedgerTestSupport

/// A run of `scripts/demo` against the binary as built, shared by the tests that read what it
/// leaves: its output, its temporary folder (which it must leave empty) and the report page it
/// writes (to `DEMO_REPORT`); or, keeping its files (`DEMO_DIR`), its ledger too.
actor DemoRun {
    static let shared = DemoRun()

    struct Outcome: Sendable {
        let result: ProcessOutput
        /// The demo's TMPDIR, where it makes its work folder.
        let temporaryDirectory: String
        /// The report page it wrote.
        let page: String
        /// The folder of its files, ledger included, when it kept them.
        let files: String?
    }

    private var tasks: [Bool: Task<Outcome, any Error>] = [:]

    func outcome(keepingFiles: Bool = false) async throws -> Outcome {
        if tasks[keepingFiles] == nil {
            tasks[keepingFiles] = Task {
                let binary = try TipLedgerBinary.path()
                let project = Fixtures.projectDirectory
                // Named relative to the project when it can be, as `make demo` and people do.
                let argument = binary.hasPrefix(project + "/") ? String(binary.dropFirst(project.count + 1)) : binary
                let name = keepingFiles ? "demo-kept" : "demo"
                let temporary = "\(SharedInputs.directory)/\(name)-tmp"
                try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
                let files = keepingFiles ? "\(SharedInputs.directory)/\(name)-files" : nil
                let page = files.map { "\($0)/report.html" } ?? "\(SharedInputs.directory)/\(name)-page/report.html"
                var environment = Subprocess.baseEnvironment()
                environment["TMPDIR"] = temporary
                if let files { environment["DEMO_DIR"] = files } else { environment["DEMO_REPORT"] = page }
                let result = try await Subprocess(
                    executable: "/bin/sh", arguments: ["scripts/demo", argument], environment: environment,
                    directory: project
                ).run()
                return Outcome(result: result, temporaryDirectory: temporary, page: page, files: files)
            }
        }
        return try await tasks[keepingFiles]!.value
    }
}
