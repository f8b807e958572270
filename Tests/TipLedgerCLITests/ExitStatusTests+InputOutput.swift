// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

/// Input that cannot be read and output that cannot be written are I/O failures, not bad input:
/// exit 74, saying which.
extension ExitStatusTests {
    static let inputOutputErrors: [FailingCommand] =
        // Output that never arrived fails the command, after its work was done: a report
        // written to a full disk must not look like a report.
        [["migrate"], ["report", "--format", "csv"], ["pending", "--format", "json"]].map { command in
            FailingCommand(
                name: "\(command.joined(separator: " ")) to a full disk", arguments: command + ["--db", "l.sqlite"],
                status: 74, message: "", errorLines: ["error: cannot write standard output: No space left on device"],
                setup: [.migrate("l.sqlite")], outputToAFullDisk: true)
        }
        // Standard input that cannot be read (here a directory).
        + [["verify", "--dry-run"], ["testkit", "notification", "--type", "REFUND", "--transaction", "-"]].map {
            command in
            FailingCommand(
                name: "\(command[0]) reading a directory",
                arguments: command + SharedInputs.acceptingTestkit(keys: FailingCommand.keys), status: 74,
                message: "", errorLines: ["error: reading standard input failed: Is a directory"],
                input: .theDirectory)
        }
        + [("missing.pem", "No such file or directory"), ("folder.pem", "it is a directory")].map { name, reason in
            FailingCommand(
                name: "a root file: \(reason)", arguments: ["verify", "--dry-run", "--root", name] + sandbox,
                status: 74, message: "cannot read \(name): \(reason)", hint: false, input: "x\n",
                setup: [.makeDirectory("folder.pem")])
        }
        + [
            FailingCommand(
                name: "a keys directory that is a file",
                arguments: ["verify", "--dry-run", "--keys", "keys"] + sandbox,
                status: 74, message: "cannot read the keys directory keys: it is not a directory", hint: false,
                input: "x\n", setup: [.write("not a directory\n", to: "keys")])
        ]

    @Test(arguments: inputOutputErrors)
    func inputOrOutputThatFailsExitsWith74(_ command: FailingCommand) async throws {
        try await command.run()
    }
}
