// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerHTTP

@testable import TipLedgerCLI

/// What `serve`'s options set in the server's configuration.
@Suite struct ServeOptionsTests {
    func configuration(_ arguments: [String]) throws -> HTTPServerConfiguration {
        var scanner = ArgumentScanner(arguments)
        let globals = try GlobalOptions(scanner: &scanner, environment: [:])
        return try ServeCommand(parsing: &scanner, globals: globals).configuration
    }

    /// The header deadline is short and its own: `--timeout` (silence) leaves it alone.
    @Test func theHeaderTimeoutAndTheSilenceTimeoutAreSetApart() throws {
        let defaults = try configuration([])
        let silence = try configuration(["--timeout", "7"])
        let both = try configuration(["--header-timeout", "3", "--timeout", "7"])

        #expect([defaults.headerDeadlineSeconds, defaults.connectionTimeoutSeconds] == [10, 30])
        #expect([silence.headerDeadlineSeconds, silence.connectionTimeoutSeconds] == [10, 7])
        #expect([both.headerDeadlineSeconds, both.connectionTimeoutSeconds] == [3, 7])
    }

    /// `--write-queue-limit`, else `TIPLEDGER_WRITE_QUEUE_LIMIT`, else 1024; a bad value of
    /// either is a usage error that names where it came from.
    @Test func theWriteQueueLimitComesFromTheFlagElseTheVariable() throws {
        func parsed(_ arguments: [String]) throws -> ServeCommand {
            var scanner = ArgumentScanner(arguments)
            return try ServeCommand(parsing: &scanner, globals: try GlobalOptions(scanner: &scanner, environment: [:]))
        }
        #expect(try parsed([]).writeQueueLimit == nil)
        #expect(try parsed(["--write-queue-limit", "64"]).writeQueueLimit == 64)
        #expect(throws: CLIError.self) { try parsed(["--write-queue-limit", "0"]) }
        #expect(try ServeCommand.writeQueueLimit(nil) == 1024)
        #expect(try ServeCommand.writeQueueLimit("") == 1024)
        #expect(try ServeCommand.writeQueueLimit("8") == 8)
        for bad in ["0", "-3", "many", "1000001"] {
            #expect { try ServeCommand.writeQueueLimit(bad) } throws: { error in
                "\(error)".contains("TIPLEDGER_WRITE_QUEUE_LIMIT") && "\(error)".contains("'\(bad)'")
            }
        }
    }

    @Test func theConnectionLimitIsHighAndMayBeRaisedFurther() throws {
        #expect(try configuration([]).connectionLimit == 4096)
        #expect(try configuration(["--connection-limit", "20000"]).connectionLimit == 20000)
    }
}
