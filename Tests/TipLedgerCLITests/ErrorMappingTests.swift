// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerStore
import TipLedgerTestSupport

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

    /// A rule of tipledger's own found broken while recording (here a trigger makes the
    /// ledger skip a new transaction's row without a word, so the row the writer inserted is
    /// not there) is its bug, not the disk's: status 70, and nothing of the batch is kept.
    @Test func aBrokenInvariantOfTheLedgerIsAnInternalErrorWithStatus70() async throws {
        let id = "2000000000000707"
        try await TemporaryDirectory.with { directory in
            let root = try directory.write(Data(TestChains.standard.root.derEncoded), to: "root.cer")
            let migrate = try await TipLedgerBinary.run(["migrate", "--db", "l.sqlite"], in: directory.path)
            try #require(migrate.exited(0), "\(migrate.summary)")
            _ = try await SQLiteShell.rows(
                "l.sqlite", "CREATE TRIGGER skip_rows BEFORE INSERT ON transactions BEGIN SELECT raise(IGNORE); END;",
                in: directory.path)
            let verify = try await TipLedgerBinary.run(
                [
                    "verify", "--db", "l.sqlite", "--root", root, "--bundle-id", "com.example.tips", "--environment",
                    "Sandbox",
                ],
                input: .text(try TestChains.transaction(id: id) + "\n"), in: directory.path)
            #expect(verify.exited(70), "\(verify.summary)")
            #expect(
                verify.errLines == ["error: internal error: a row for transaction \(id) appeared while it was recorded"]
            )
            #expect(try await SQLiteShell.value("l.sqlite", "SELECT count(*) FROM evidence", in: directory.path) == "0")
        }
    }

    @Test func aCLIErrorKeepsItsOwnStatus() {
        let failure = CLI.failure(CLIError(.usage, "give --account UUID"))
        #expect(failure.status == .usage)
        #expect(failure.message == "give --account UUID")
    }
}
