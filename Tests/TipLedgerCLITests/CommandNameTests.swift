// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCLI

/// How `tipledger` finds the command among its arguments.
@Suite struct CommandNameTests {
    /// Options that may come before the command, each with a value that names no command.
    static let optionsBeforeTheCommand: [[String]] = [
        ["--db", "ledger.sqlite"], ["--format", "json"], ["--root", "root.cer"], ["--api-key", "AuthKey.p8"],
        ["--api-key-id", "2X9R4HXF34"], ["--api-url", "https://localhost:8443"],
    ]

    @Test(arguments: optionsBeforeTheCommand)
    func theValueOfAnOptionBeforeTheCommandIsNotTakenForTheCommand(_ option: [String]) {
        let terminal = Terminal.capturing()
        let status = CLI.main(option + ["help", "sync"], environment: [:], terminal: terminal)
        #expect(status == 0, "\(terminal.capturedError)")
        #expect(terminal.capturedOutput.hasPrefix("Usage: tipledger sync"))
    }
}
