// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerStore

@testable import TipLedgerCLI

/// How `CLI.main` turns an error out of a command into its one `error:` line and exit status.
@Suite struct ErrorMappingTests {
    struct Unforeseen: Error, CustomStringConvertible {
        var description: String { "the unforeseen happened" }
    }

    /// An error of no kind the CLI knows is its own bug: status 70, said as an internal error.
    @Test func anUnknownErrorIsAnInternalErrorWithStatus70() {
        let failure = CLI.failure(Unforeseen())
        #expect(failure.status == .internalError)
        #expect(failure.status.rawValue == 70)
        #expect(failure.message == "internal error: the unforeseen happened")
        #expect(failure.hint == nil)
    }

    @Test func aStoreErrorIsTheLedgerFailingWithStatus74() {
        let failure = CLI.failure(StoreError(code: 10, message: "disk I/O error", hint: "check the disk"))
        #expect(failure.status == .ioError)
        #expect(failure.status.rawValue == 74)
        #expect(failure.hint == "check the disk")
    }

    @Test func aCLIErrorKeepsItsOwnStatus() {
        let failure = CLI.failure(CLIError(.usage, "give --account UUID"))
        #expect(failure.status == .usage)
        #expect(failure.message == "give --account UUID")
    }
}
