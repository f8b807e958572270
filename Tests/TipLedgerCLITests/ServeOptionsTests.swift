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

    @Test func theConnectionLimitIsHighAndMayBeRaisedFurther() throws {
        #expect(try configuration([]).connectionLimit == 4096)
        #expect(try configuration(["--connection-limit", "20000"]).connectionLimit == 20000)
    }
}
